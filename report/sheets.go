package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// camera is one camera's sheets as shown.
type camera struct {
	Name   string // the topic, from the metadata (else the directory name)
	Dir    string // where the sheets are (the store's name for them)
	Anchor string

	Sheets        []*sheetView // contact sheets inlined, in time order
	SheetsTotal   int
	SheetsOmitted int
	// Spaced: more sheets than the cap, so an evenly spaced subset is shown.
	Spaced        bool
	LabelsTotal   int
	LabelsOmitted int

	files  []sheetFile  // the camera's sheet JPEGs, as listed
	all    []*sheetView // every contact sheet with metadata (for the lane)
	labels []*sheetView // labeling sheets inlined
	end    float64      // last second covered by a sheet
	bytes  int64
	// labelCount counts labeling sheets inlined.
	labelCount int
}

// sheetFile is one sheet's JPEG as listed.
type sheetFile struct {
	name  string // relative to the episode: sheets/CAMERA/sheet-0001.jpg
	size  int64
	label bool
}

// sheetView is one sheet (contact or labeling) on the page.
type sheetView struct {
	Camera   string
	File     string
	Anchor   string
	Meta     sheet.Meta
	Src      template.URL // data: URI, empty when not inlined
	From, To float64      // episode seconds covered
	Missing  int          // placeholder tiles (camera had no frame)
	Bytes    int
	Chips    []chip // segments overlapping the sheet
	Range    string
	name     string // the JPEG, relative to the episode
	size     int64  // of the JPEG, as listed
}

var (
	sheetName = regexp.MustCompile(`^sheet-([0-9]{1,9})\.jpg$`)
	labelName = regexp.MustCompile(`^label-[0-9]{1,12}(-[0-9]{1,12})?\.jpg$`) // label-SSSS (by segment), or by ticks before segments were named
)

// readCameras reads the sheets of every camera of the episode whose
// files are ep (blob.Sub of its store): one listing of its sheets/ and
// labels/, then the metadata of every sheet and the JPEGs shown (the
// labeling sheets of segs composed from the contact sheets when the
// robot shipped none for any camera).
func readCameras(ep blob.Blobs, segs []episode.Segment, o Options) ([]*camera, []string) {
	cams, notes, err := listCameras(ep)
	if err != nil {
		return nil, []string{fmt.Sprintf("sheets: %v", err)}
	}
	if len(cams) == 0 {
		return nil, notes
	}
	if shippedLabels(cams) {
		segs = nil // the robot shipped labeling sheets: show those, compose none
	}
	share := o.MaxImageBytes / int64(len(cams))
	for i, c := range cams {
		notes = append(notes, c.read(ep, segs, o, share)...)
		c.Anchor = "cam-" + strconv.Itoa(i)
	}
	sort.SliceStable(cams, func(i, j int) bool { return cams[i].Name < cams[j].Name })
	return cams, notes
}

// listCameras lists the cameras of the episode ep, in directory name
// order: those with a directory under sheets/, each with its contact
// and labeling sheet JPEGs (labeling sheets are in labels/CAMERA,
// episode.LabelDir; older episodes kept them beside the contact sheets).
func listCameras(ep blob.Blobs) ([]*camera, []string, error) {
	sheets, err := ep.List(episode.SheetsDir + "/")
	if err != nil {
		return nil, nil, err
	}
	labels, err := ep.List(episode.LabelsDir + "/")
	if err != nil {
		return nil, nil, err
	}
	byDir := map[string]*camera{}
	var cams []*camera
	for i, f := range append(sheets, labels...) {
		parts := strings.Split(f.Name, "/")
		if len(parts) != 3 || parts[1] == "" || parts[1][0] == '.' {
			continue
		}
		c := byDir[parts[1]]
		if c == nil && i < len(sheets) {
			c = &camera{Name: parts[1], Dir: ep.String() + "/" + episode.SheetsDir + "/" + parts[1]}
			byDir[parts[1]] = c
			cams = append(cams, c)
		}
		isSheet, isLabel := sheetName.MatchString(parts[2]), labelName.MatchString(parts[2])
		if c == nil || (!isSheet && !isLabel) {
			continue
		}
		c.files = append(c.files, sheetFile{name: f.Name, size: f.Size, label: isLabel || i >= len(sheets)})
	}
	var notes []string
	for _, c := range cams {
		if len(c.files) > MaxSheetFiles {
			notes = append(notes, fmt.Sprintf("%s: %d sheets, only the first %d considered", c.Dir, len(c.files), MaxSheetFiles))
			c.files = c.files[:MaxSheetFiles]
		}
	}
	sort.SliceStable(cams, func(i, j int) bool { return cams[i].Name < cams[j].Name })
	return cams, notes, nil
}

// read reads the camera's sheets: the metadata of every one, then the
// JPEGs of those shown, within budget bytes (three quarters for contact
// sheets, the rest and whatever they left for labeling sheets).
func (c *camera) read(ep blob.Blobs, segs []episode.Segment, o Options, budget int64) (notes []string) {
	note := func(format string, a ...any) {
		notes = append(notes, fmt.Sprintf("%s: ", c.Dir)+fmt.Sprintf(format, a...))
	}
	labels := c.readMetas(ep, note)
	c.SheetsTotal, c.LabelsTotal = len(c.all), len(labels)

	left := budget * 3 / 4
	chosen := pick(c.all, o.MaxSheets, left)
	c.Spaced = len(chosen) < len(c.all) && len(chosen) > 0
	c.Sheets = inlineAll(ep, chosen, &left, note)
	c.SheetsOmitted = len(c.all) - len(c.Sheets)
	left += budget / 4
	if len(labels) == 0 && len(c.all) > 0 && len(segs) > 0 {
		c.labels = c.composeLabels(ep, segs, o.MaxLabelSheets, &left, note)
		c.LabelsTotal = len(segs)
	} else {
		c.labels = inlineAll(ep, pick(labels, o.MaxLabelSheets, left), &left, note)
	}
	c.labelCount = len(c.labels)
	c.LabelsOmitted = c.LabelsTotal - len(c.labels)
	c.bytes = budget - left
	for _, v := range c.labels {
		v.Camera = c.Name
	}
	return notes
}

// readMetas reads the metadata of every sheet of the camera, in time
// order: the contact sheets into c.all, the labeling sheets returned.
func (c *camera) readMetas(ep blob.Blobs, note func(string, ...any)) (labels []*sheetView) {
	for _, f := range c.files {
		v, err := readMeta(ep, f)
		if err != nil {
			note("%s not shown: %v", path.Base(f.name), err)
			continue
		}
		if v.Meta.Camera != "" {
			c.Name = v.Meta.Camera
		}
		c.end = max(c.end, v.To)
		if f.label {
			labels = append(labels, v)
		} else {
			c.all = append(c.all, v)
		}
	}
	sort.SliceStable(c.all, func(i, j int) bool { return c.all[i].From < c.all[j].From })
	sort.SliceStable(labels, func(i, j int) bool { return labels[i].From < labels[j].From })
	return labels
}

// inlineAll inlines those of vs that fit in *left (inline).
func inlineAll(ep blob.Blobs, vs []*sheetView, left *int64, note func(string, ...any)) []*sheetView {
	var out []*sheetView
	for _, v := range vs {
		if inline(ep, v, left, note) {
			out = append(out, v)
		}
	}
	return out
}

// pick chooses which sheets to inline: at most n, and as many as budget
// bytes hold at their mean size, evenly spaced so the whole episode stays
// covered when the caps bind.
func pick(vs []*sheetView, n int, budget int64) []*sheetView {
	if n < 0 || len(vs) == 0 {
		return nil
	}
	var total int64
	for _, v := range vs {
		total += v.size
	}
	if mean := total / int64(len(vs)); mean > 0 {
		n = min(n, int(budget/mean))
	}
	if n <= 0 {
		return nil
	}
	return spaced(vs, n)
}

// spaced returns at most n of vs, evenly spaced and keeping the first and
// the last; n < 0 returns none.
func spaced(vs []*sheetView, n int) []*sheetView {
	switch {
	case n < 0:
		return nil
	case len(vs) <= n:
		return vs
	case n == 1:
		return vs[:1]
	}
	out := make([]*sheetView, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, vs[i*(len(vs)-1)/(n-1)])
	}
	return out
}

// readMeta reads the JSON metadata beside a sheet JPEG.
func readMeta(ep blob.Blobs, f sheetFile) (*sheetView, error) {
	jpg := path.Base(f.name)
	base := strings.TrimSuffix(jpg, ".jpg")
	b, _, err := ep.Get(strings.TrimSuffix(f.name, ".jpg")+".json", MaxMetaBytes)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	v := &sheetView{File: jpg, Anchor: "s-" + base, name: f.name, size: f.size}
	if err := json.Unmarshal(b, &v.Meta); err != nil {
		return nil, fmt.Errorf("metadata %s.json: %w", base, err)
	}
	m := &v.Meta
	if len(m.Tiles) == 0 {
		return nil, fmt.Errorf("metadata %s.json has no tiles", base)
	}
	v.From = m.Tiles[0].Seconds
	v.To = m.Tiles[len(m.Tiles)-1].Seconds + max(m.IntervalSeconds, 0)
	for _, t := range m.Tiles {
		v.From, v.To = min(v.From, t.Seconds), max(v.To, t.Seconds+max(m.IntervalSeconds, 0))
		if t.Placeholder {
			v.Missing++
		}
	}
	return v, nil
}

// inline reads v's JPEG into a data: URI if it fits in *left (its size
// as listed is checked before it is read).
func inline(ep blob.Blobs, v *sheetView, left *int64, note func(string, ...any)) bool {
	if v.size > MaxImageFileBytes {
		note("%s not inlined: %d bytes, more than %d", v.File, v.size, MaxImageFileBytes)
		return false
	}
	if v.size > *left {
		return false
	}
	b, _, err := ep.Get(v.name, min(MaxImageFileBytes, *left))
	if err != nil {
		note("%s: %v", v.File, err)
		return false
	}
	if !bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) {
		note("%s is not a JPEG: not shown", v.File)
		return false
	}
	*left -= int64(len(b))
	v.Bytes = len(b)
	v.Src = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b))
	return true
}
