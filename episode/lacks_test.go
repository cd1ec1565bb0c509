package episode

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

func TestLacksOf(t *testing.T) {
	m := &Manifest{Closed: true, Segments: 3, Produced: map[string]CameraCounts{
		"top": {Sheets: 2, Snippets: 2, LabelSheets: 3}, "wrist": {Sheets: 2, Snippets: 2, LabelSheets: 2}}}
	all := map[string]bool{}
	for _, cam := range []string{"top", "wrist"} {
		for i := 1; i <= 2; i++ {
			all[SheetsDir+"/"+cam+"/"+SheetName(i)+".json"] = true
			all[SnippetsDir+"/"+cam+"/"+SheetName(i)+SnippetExt] = true
		}
		for i := range 3 {
			all[LabelsDir+"/"+cam+"/"+LabelName(i)+".json"] = true
		}
	}
	without := func(rels ...string) map[string]bool {
		f := map[string]bool{}
		for k := range all {
			f[k] = true
		}
		for _, r := range rels {
			delete(f, r)
		}
		return f
	}
	allSegs := func(int) bool { return true }
	for _, c := range []struct {
		name  string
		segs  func(int) bool
		files map[string]bool
		limit int
		want  string
		more  bool
	}{
		{"everything held", allSegs, all, 100, "[]", false},
		{"a segment", func(i int) bool { return i != 1 }, all, 100, "[segment/1]", false},
		{"a sheet and its snippet", allSegs, without("sheets/top/sheet-0002.json", "snippets/top/sheet-0002.msgpack.zst"), 100,
			"[sheet/top/2 snippet/top/2]", false},
		{"a jpg without its json is not held", allSegs, without("sheets/wrist/sheet-0001.json"), 100, "[sheet/wrist/1]", false},
		// wrist announced 2 labeling sheets and holds 3: nothing lacks.
		{"labeling sheets", allSegs, without("labels/top/label-0000.json", "labels/wrist/label-0002.json"), 100, "[label_sheet/top/0]", false},
		{"capped", func(int) bool { return false }, map[string]bool{}, 4, "[segment/0 segment/1 segment/2 sheet/top/1]", true},
	} {
		got, more := LacksOf(m, c.segs, slices.Collect(maps.Keys(c.files)), c.limit)
		if fmt.Sprint(got) != c.want || more != c.more {
			t.Errorf("%s: lacks %v more %v, want %s %v", c.name, got, more, c.want, c.more)
		}
	}
}

// Indexes a robot skipped or never made do not hide the ones lost: a
// labeling sheet never made (segment 0) beside one lost (segment 4), and
// contact sheets numbered 1, 2, 3, 61 (the clock jumped ahead).
func TestLacksOfGaps(t *testing.T) {
	m := &Manifest{Closed: true, Segments: 5, Produced: map[string]CameraCounts{"c": {LabelSheets: 4, Sheets: 4, Snippets: 4, LastSheet: 61}}}
	files := map[string]bool{}
	for i := 1; i <= 3; i++ {
		files[LabelsDir+"/c/"+LabelName(i)+".json"] = true
		files[SheetsDir+"/c/"+SheetName(i)+".json"] = true
		files[SnippetsDir+"/c/"+SheetName(i)+SnippetExt] = true
	}
	got, _ := LacksOf(m, func(int) bool { return true }, slices.Collect(maps.Keys(files)), 1000)
	var names []string
	for _, p := range got {
		names = append(names, p.String())
	}
	for _, want := range []string{"label_sheet/c/0", "label_sheet/c/4", "sheet/c/61", "snippet/c/61"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not asked for: %v", want, names)
		}
	}
}

// A robot's announced counts bound nothing: the walk ends after the
// files held plus the limit.
func TestLacksOfHugeCounts(t *testing.T) {
	m := &Manifest{Closed: true, Segments: 1 << 30, Produced: map[string]CameraCounts{"c": {Sheets: 1 << 30, Snippets: 1 << 30, LabelSheets: 1 << 30}}}
	got, more := LacksOf(m, func(i int) bool { return i < 3 }, nil, 10)
	if len(got) != 10 || !more {
		t.Fatalf("got %d more %v", len(got), more)
	}
}

// BenchmarkLacksOfManyCameras: 1024 cameras (the wire's cap) over 50,000
// files is one pass over the files (it was one per camera).
func BenchmarkLacksOfManyCameras(b *testing.B) {
	m := &Manifest{Closed: true, Produced: map[string]CameraCounts{}}
	for i := range 1024 {
		m.Produced[fmt.Sprint("cam", i)] = CameraCounts{}
	}
	files := map[string]bool{}
	for i := range 50000 {
		files[fmt.Sprintf("%s/cam%d/%s.json", LabelsDir, i%1024, LabelName(i))] = true
	}
	names := slices.Collect(maps.Keys(files))
	b.ReportAllocs()
	b.SetBytes(int64(len(files)))
	for b.Loop() {
		LacksOf(m, func(int) bool { return true }, names, 0)
	}
}
