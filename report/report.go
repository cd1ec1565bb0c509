package report

import (
	"bufio"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// Defaults of Options.
const (
	DefaultMaxSheets      = 40
	DefaultMaxLabelSheets = 100
	DefaultMaxImageBytes  = 16 << 20
	// MaxImageFileBytes caps one sheet JPEG; a larger one is not inlined.
	MaxImageFileBytes = 8 << 20
	// MaxMetaBytes caps one sheet's JSON metadata.
	MaxMetaBytes = 1 << 20
	// MaxSheetFiles caps the files considered per camera directory.
	MaxSheetFiles = 100000
)

// Options of one report. Zero fields take the documented defaults.
type Options struct {
	// Store is the episode store (its episodes/: a directory, blob.Dir,
	// or an object store) in which the episode, an id or a unique
	// prefix of one, is read where it is; nil: the episode is named by
	// its directory.
	Store blob.Blobs
	// Annotations are files in a format of SCORING.md (normally the
	// {"segments":[{start_sec,end_sec,subtask}]} format cloud VLM
	// pipelines emit), each shown and scored against the FSM segments.
	Annotations []string
	// Encoder and Judge for the scores; default score.HashedNGram() and
	// score.LexicalJudge{}.
	Encoder score.Encoder
	Judge   score.Judge
	// MaxSheets: contact sheets inlined per camera. Default 40;
	// negative: none.
	MaxSheets int
	// MaxLabelSheets: labeling sheets inlined per camera. Default 100;
	// negative: none.
	MaxLabelSheets int
	// MaxImageBytes: all inlined images together, before base64.
	// Default 16 MiB.
	MaxImageBytes int64
	// Generator names the program in the footer, e.g. "edged v1.2".
	Generator string
	// Now stamps the footer. Default time.Now.
	Now func() time.Time
	// OutDir is the directory the report is written to: links to the
	// episode's clips are relative to it (WriteFile sets it). Empty:
	// the clips' paths as the episode was named.
	OutDir string
}

func (o *Options) defaults() {
	if o.MaxSheets == 0 {
		o.MaxSheets = DefaultMaxSheets
	}
	if o.MaxLabelSheets == 0 {
		o.MaxLabelSheets = DefaultMaxLabelSheets
	}
	if o.MaxImageBytes <= 0 {
		o.MaxImageBytes = DefaultMaxImageBytes
	}
	if o.Encoder == nil {
		o.Encoder = score.HashedNGram()
	}
	if o.Judge == nil {
		o.Judge = score.LexicalJudge{}
	}
	if o.Generator == "" {
		o.Generator = "edged"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Summary says what went into a report.
type Summary struct {
	Episode            string
	Segments           int
	Cameras            int
	Sheets             int // contact sheets inlined
	SheetsOmitted      int
	LabelSheets        int // labeling sheets inlined
	LabelSheetsOmitted int
	Annotations        int
	Clips              int   // incident clips on the timeline
	ImageBytes         int64 // inlined, before base64
	HTMLBytes          int64
	Notes              []string
}

// Write renders the episode ref (an id or unique id prefix in o.Store,
// else an episode directory) as one self-contained HTML document to w.
// It streams: on an error w may hold part of a page (write to a
// temporary file and rename it on success).
func Write(w io.Writer, ref string, o Options) (*Summary, error) {
	o.defaults()
	store, id := o.Store, ref
	if store == nil {
		var err error
		if store, id, err = episode.OpenDir(ref); err != nil {
			return nil, err
		}
	}
	e, err := episode.LoadBlobs(store, id)
	if err != nil {
		return nil, err
	}
	o.Store = store // the store the episode was read from: its stored annotations are there too
	p, err := build(e, blob.Sub(store, e.Manifest.ID), o)
	if err != nil {
		return nil, err
	}
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<16)}
	err = pageTemplate.Execute(cw, p)
	if err == nil {
		err = cw.w.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("report: render: %w", err)
	}
	p.summary.HTMLBytes = cw.n
	return &p.summary, nil
}

type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// build gathers everything the template shows; ep holds e's files.
func build(e *episode.Episode, ep blob.Blobs, o Options) (*page, error) {
	p := &page{
		Episode:   e,
		Generator: o.Generator,
		Generated: o.Now().UTC().Format("2006-01-02 15:04:05 UTC"),
		colors:    newPalette(),
	}
	p.summary.Episode = e.Manifest.ID
	p.summary.Segments = len(e.Segments)
	p.Notes = append(p.Notes, e.Problems...)
	for _, s := range e.Segments {
		p.colors.of(s.Label)
	}
	cams, notes := readCameras(ep, e.Segments, o)
	p.Notes = append(p.Notes, notes...)
	p.Cameras = cams
	left := o.MaxImageBytes
	for _, c := range cams {
		left -= c.bytes
	}
	clipsFrom := left
	clips, notes := readClips(e, o, &left)
	p.Notes = append(p.Notes, notes...)
	p.Clips = clips
	truth := view.Segmentation(e)
	for _, path := range o.Annotations {
		p.Annotations = append(p.Annotations, loadAnnotation(path, truth, o))
	}
	stored, notes := storedAnnotations(e, o)
	p.Notes = append(p.Notes, notes...)
	p.Annotations = append(p.Annotations, stored...)
	for _, a := range p.Annotations {
		for _, s := range a.Seg.Segments {
			p.colors.of(s.Label)
		}
	}
	p.span = span(e, cams, p.Annotations, clips)
	p.layout()
	for _, c := range cams {
		p.summary.Sheets += len(c.Sheets)
		p.summary.SheetsOmitted += c.SheetsOmitted
		p.summary.LabelSheets += c.labelCount
		p.summary.LabelSheetsOmitted += c.LabelsOmitted
		p.summary.ImageBytes += c.bytes
	}
	p.summary.ImageBytes += clipsFrom - left // the clips' thumbnails
	p.summary.Clips = len(clips)
	p.summary.Cameras = len(cams)
	p.summary.Annotations = len(p.Annotations)
	p.summary.Notes = p.Notes
	return p, nil
}

// Annotation is one cloud annotation file and its scores.
type Annotation struct {
	Name   string
	Path   string
	Seg    score.Segmentation
	Score  *score.Report
	Err    string // why it was not scored (or not read)
	Bars   []bar
	Rows   []annRow
	Placed bool // the segments are in seconds and shown on the timeline
	// PredRows and TruthRows show Score.Matching: per annotation and per
	// FSM segment, its best IoU, its match at IoU >= 0.75 or
	// "unmatched", the judge's verdict and the end-to-end match.
	PredRows, TruthRows []matchRow
}

type annRow struct {
	Index              int
	Start, End, Length string
	Label              string
	Color              template.CSS
}

func loadAnnotation(path string, truth score.Segmentation, o Options) *Annotation {
	a := &Annotation{Name: filepath.Base(path), Path: path}
	seg, err := view.ReadSegmentation(path)
	if err != nil {
		a.Err = "not read: " + err.Error()
		return a
	}
	a.Seg = seg
	a.Placed = seg.Unit == score.Seconds
	r, err := score.Score(truth, seg, score.Options{Encoder: o.Encoder, Judge: o.Judge})
	var refused *score.Refused
	switch {
	case errors.As(err, &refused):
		a.Err = "not scored: " + refused.Error()
	case err != nil:
		a.Err = "not scored: " + err.Error()
	default:
		a.Score = r
	}
	return a
}

// span is the length of the time axis in episode seconds: everything
// shown must fit on it.
func span(e *episode.Episode, cams []*camera, anns []*Annotation, clips []*clipView) float64 {
	t := e.Manifest.Duration().Seconds()
	for _, c := range clips {
		t = max(t, c.sec)
	}
	for _, s := range e.Segments {
		t = max(t, s.EndSec)
	}
	for _, c := range cams {
		t = max(t, c.end)
	}
	for _, a := range anns {
		if a.Placed {
			for _, s := range a.Seg.Segments {
				t = max(t, s.End)
			}
		}
	}
	if t <= 0 {
		t = 1
	}
	return t
}
