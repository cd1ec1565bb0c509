package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// camera is one camera's sheets as shown.
type camera struct {
	Name   string // the topic, from the metadata (else the directory name)
	Dir    string // directory holding the sheets
	Anchor string

	Sheets        []*sheetView // contact sheets inlined, in time order
	SheetsTotal   int
	SheetsOmitted int
	// Spaced: more sheets than the cap, so an evenly spaced subset is shown.
	Spaced        bool
	LabelsTotal   int
	LabelsOmitted int

	all    []*sheetView // every contact sheet with metadata (for the lane)
	labels []*sheetView // labeling sheets inlined
	end    float64      // last second covered by a sheet
	bytes  int64
	// labelCount counts labeling sheets inlined.
	labelCount int
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
	dir      string
	size     int64 // of the JPEG on disk
}

var (
	sheetName = regexp.MustCompile(`^sheet-([0-9]{1,9})\.jpg$`)
	labelName = regexp.MustCompile(`^label-[0-9]{1,12}(-[0-9]{1,12})?\.jpg$`) // label-SSSS (by segment), or by ticks before segments were named
)

// readCameras reads every camera directory under dir (episode/sheets).
// A missing directory means an episode without sheets.
func readCameras(dir string, o Options) ([]*camera, []string) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("sheets: %v", err)}
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && e.Name()[0] != '.' {
			names = append(names, e.Name())
		}
	}
	var cams []*camera
	var notes []string
	if len(names) == 0 {
		return nil, nil
	}
	share := o.MaxImageBytes / int64(len(names))
	for i, n := range names {
		c, ns := readCamera(filepath.Join(dir, n), o, share)
		c.Anchor = "cam-" + strconv.Itoa(i)
		cams = append(cams, c)
		notes = append(notes, ns...)
	}
	sort.SliceStable(cams, func(i, j int) bool { return cams[i].Name < cams[j].Name })
	return cams, notes
}

// readCamera reads one camera directory: the metadata of every sheet,
// then the JPEGs of those shown, within budget bytes (three quarters for
// contact sheets, the rest and whatever they left for labeling sheets).
func readCamera(dir string, o Options, budget int64) (*camera, []string) {
	c := &camera{Name: filepath.Base(dir), Dir: dir}
	var notes []string
	note := func(format string, a ...any) {
		notes = append(notes, fmt.Sprintf("%s: ", dir)+fmt.Sprintf(format, a...))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		note("%v", err)
		return c, notes
	}
	// Labeling sheets are in labels/CAMERA (episode.LabelDir); older
	// episodes kept them beside the contact sheets.
	lDir := episode.LabelDir(filepath.Dir(filepath.Dir(dir)), filepath.Base(dir))
	nSheets := len(ents)
	lents, _ := os.ReadDir(lDir)
	ents = append(ents, lents...)
	if len(ents) > MaxSheetFiles {
		note("%d files, only the first %d considered", len(ents), MaxSheetFiles)
		ents = ents[:MaxSheetFiles]
	}
	var labels []*sheetView
	for i, e := range ents {
		name := e.Name()
		isSheet, isLabel := sheetName.MatchString(name), labelName.MatchString(name)
		if !isSheet && !isLabel {
			continue
		}
		from := dir
		if i >= nSheets {
			from, isSheet = lDir, false
		}
		v, err := readMeta(from, name)
		if err != nil {
			note("%s not shown: %v", name, err)
			continue
		}
		if v.Meta.Camera != "" {
			c.Name = v.Meta.Camera
		}
		c.end = max(c.end, v.To)
		if isSheet {
			c.all = append(c.all, v)
		} else {
			labels = append(labels, v)
		}
	}
	sort.SliceStable(c.all, func(i, j int) bool { return c.all[i].From < c.all[j].From })
	sort.SliceStable(labels, func(i, j int) bool { return labels[i].From < labels[j].From })
	c.SheetsTotal, c.LabelsTotal = len(c.all), len(labels)

	left := budget * 3 / 4
	chosen := pick(c.all, o.MaxSheets, left)
	c.Spaced = len(chosen) < len(c.all) && len(chosen) > 0
	for _, v := range chosen {
		if inline(v, &left, note) {
			c.Sheets = append(c.Sheets, v)
		}
	}
	c.SheetsOmitted = len(c.all) - len(c.Sheets)
	left += budget / 4
	for _, v := range pick(labels, o.MaxLabelSheets, left) {
		if inline(v, &left, note) {
			c.labels = append(c.labels, v)
		}
	}
	c.labelCount = len(c.labels)
	c.LabelsOmitted = len(labels) - len(c.labels)
	c.bytes = budget - left
	for _, v := range c.labels {
		v.Camera = c.Name
	}
	return c, notes
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
func readMeta(dir, jpg string) (*sheetView, error) {
	base := jpg[:len(jpg)-len(".jpg")]
	b, err := fsutil.ReadFileCapped(filepath.Join(dir, base+".json"), MaxMetaBytes)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	v := &sheetView{File: jpg, Anchor: "s-" + base, dir: dir}
	if st, err := os.Stat(filepath.Join(dir, jpg)); err == nil {
		v.size = st.Size()
	}
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

// inline reads v's JPEG into a data: URI if it fits in *left.
func inline(v *sheetView, left *int64, note func(string, ...any)) bool {
	path := filepath.Join(v.dir, v.File)
	st, err := os.Stat(path)
	if err != nil {
		note("%s: %v", v.File, err)
		return false
	}
	if st.Size() > MaxImageFileBytes {
		note("%s not inlined: %d bytes, more than %d", v.File, st.Size(), MaxImageFileBytes)
		return false
	}
	if st.Size() > *left {
		return false
	}
	b, err := fsutil.ReadFileCapped(path, MaxImageFileBytes)
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
