package episode

import (
	"encoding/json"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/score"
)

// WriteList renders the episodes as a table for a terminal.
func WriteList(w io.Writer, ms []Manifest) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EPISODE\tSTART (UTC)\tDURATION\tSEGMENTS\tOUTCOME\tEND\tUPLOADED\tINSTRUCTION")
	for _, m := range ms {
		outcome, dur := m.Outcome, fmtDur(m.Duration())
		if !m.Closed {
			outcome, dur = "open", "-"
		}
		up := "no"
		if m.Uploaded {
			up = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", m.ID, m.Start.UTC().Format("2006-01-02 15:04:05.000"), dur,
			m.Segments, outcome, dash(m.EndReason), up, clip(m.Instruction, 48))
	}
	if len(ms) == 0 {
		fmt.Fprintln(tw, "(no episodes)")
	}
	return tw.Flush()
}

// WriteTimeline renders one episode: its manifest, then one line per
// segment (start, end, duration, label, outcome, source).
func WriteTimeline(w io.Writer, e *Episode) error {
	m := e.Manifest
	state := m.Outcome + " (" + dash(m.EndReason) + ")"
	if !m.Closed {
		state = "open (being recorded, or edged stopped and has not restarted yet)"
	}
	fmt.Fprintf(w, "episode      %s\nrobot        %s\nstart        %s\nduration     %s\noutcome      %s\n",
		m.ID, m.Robot, m.Start.UTC().Format(time.RFC3339Nano), fmtDur(m.Duration()), state)
	if m.Instruction != "" {
		fmt.Fprintf(w, "instruction  %s\n", m.Instruction)
	}
	fmt.Fprintf(w, "segments     %d    transitions %d\n", len(e.Segments), len(e.Transitions))
	fmt.Fprintf(w, "cost         %s\n", e.Cost)
	if m.Recovery != nil {
		fmt.Fprintf(w, "recovered    after a crash: %d segments closed as interrupted, %d torn bytes cut, %d corrupt regions quarantined\n",
			m.Recovery.Interrupted, m.Recovery.TornBytes, m.Recovery.Quarantined)
	}
	for _, p := range e.Problems {
		fmt.Fprintf(w, "PROBLEM      %s\n", p)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSTART\tEND\tDURATION\tLABEL\tOUTCOME\tSOURCE")
	for i, s := range e.Segments {
		fmt.Fprintf(tw, "%d\t%8.3fs\t%8.3fs\t%s\t%s\t%s\t%s\n", i, s.StartSec, s.EndSec, fmtDur(s.End.Sub(s.Start)),
			clip(s.Label, 60), s.Outcome, s.Source)
	}
	return tw.Flush()
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.3fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%06.3fs", int(d.Minutes()), math.Mod(d.Seconds(), 60))
	default:
		return d.Round(time.Second).String()
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clip shortens s for a table cell and makes control bytes visible.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Export formats.
const (
	FormatWGO      = "wgo"
	FormatSteps    = "steps"
	FormatFoxglove = "foxglove"
)

// Export writes the episode's segments in one of the export formats:
//
//	wgo       {"segments":[{"start_sec","end_sec","subtask"}]} in episode
//	          seconds, the format VLM pipelines emit (and edged score reads)
//	steps     CSV "step,subtask,stage": one row per control step at rate
//	          Hz over the episode; subtask is the label of the segment
//	          active at the step (the latest started), stage its index;
//	          "" and -1 between segments
//	foxglove  a JSON list of Foxglove events (the body of POST
//	          /v1/events: deviceName, start, end, metadata)
func Export(w io.Writer, e *Episode, format string, rate float64) error {
	switch format {
	case FormatWGO:
		type seg struct {
			Start   float64 `json:"start_sec"`
			End     float64 `json:"end_sec"`
			Subtask string  `json:"subtask"`
		}
		out := struct {
			Segments []seg `json:"segments"`
		}{Segments: []seg{}}
		for _, s := range e.Segments {
			out.Segments = append(out.Segments, seg{round6(s.StartSec), round6(s.EndSec), s.Label})
		}
		return writeJSON(w, out)
	case FormatSteps:
		return exportSteps(w, e, rate)
	case FormatFoxglove:
		type event struct {
			DeviceName string            `json:"deviceName"`
			Start      string            `json:"start"`
			End        string            `json:"end"`
			Metadata   map[string]string `json:"metadata"`
		}
		out := []event{}
		for _, s := range e.Segments {
			md := map[string]string{"subtask": s.Label, "outcome": s.Outcome, "episode": e.Manifest.ID,
				"source": s.Source, "kind": s.Kind, "index": fmt.Sprint(s.Index)}
			if s.Path != "" {
				md["path"] = s.Path
			}
			if s.GoalID != "" {
				md["goal_id"] = s.GoalID
			}
			if e.Manifest.Instruction != "" {
				md["instruction"] = e.Manifest.Instruction
			}
			out = append(out, event{DeviceName: e.Manifest.Robot, Start: s.Start.UTC().Format(time.RFC3339Nano),
				End: s.End.UTC().Format(time.RFC3339Nano), Metadata: md})
		}
		return writeJSON(w, out)
	}
	return fmt.Errorf("export: unknown format %q: want wgo, steps or foxglove", format)
}

// maxSteps caps the steps export (a day at 100 Hz is 8.6 million steps).
const maxSteps = 10_000_000

func exportSteps(w io.Writer, e *Episode, rate float64) error {
	if !(rate > 0) || rate > 1e6 {
		return fmt.Errorf("export steps: --rate must be in (0, 1e6] Hz, got %g", rate)
	}
	end := 0.0
	for _, s := range e.Segments {
		end = math.Max(end, s.EndSec)
	}
	if d := e.Manifest.Duration().Seconds(); d > end {
		end = d
	}
	n := int(math.Floor(end*rate)) + 1
	if n > maxSteps {
		return fmt.Errorf("export steps: %d steps at %g Hz is more than %d: lower --rate", n, rate, maxSteps)
	}
	bw := newLineWriter(w)
	bw.printf("step,subtask,stage\n")
	for k := range n {
		t := float64(k) / rate
		label, stage := "", -1
		for i, s := range e.Segments {
			if s.StartSec <= t && (t < s.EndSec || (t == s.EndSec && i == len(e.Segments)-1)) {
				label, stage = s.Label, i
			}
		}
		bw.printf("%d,%s,%d\n", k, csvField(label), stage)
	}
	return bw.err
}

type lineWriter struct {
	w   io.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: w} }

func (l *lineWriter) printf(format string, a ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, a...)
	}
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadSegmentation reads an input of edged score: an episode directory
// (its recorded segments) or a JSON file in either format of SCORING.md.
func ReadSegmentation(path string) (score.Segmentation, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return LoadSegmentation(path)
	}
	b, err := fsutil.ReadFileCapped(path, score.MaxInputBytes)
	if err != nil {
		return score.Segmentation{}, err
	}
	s, err := score.ParseSegmentation(b)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
