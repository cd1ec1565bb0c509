package episode

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
)

// sheetJSON is a sheet's metadata as the sheet package writes it (the
// fields the cost reads): n tiles from tick first, 0.5 s apart.
func sheetJSON(w, h, tokens int, first, n int) []byte {
	type tile struct {
		Seconds float64 `json:"seconds"`
	}
	m := struct {
		Width    int     `json:"width"`
		Height   int     `json:"height"`
		Tokens   int     `json:"vlm_tokens,omitempty"`
		Interval float64 `json:"interval_seconds"`
		Tiles    []tile  `json:"tiles"`
	}{Width: w, Height: h, Tokens: tokens, Interval: 0.5}
	for k := range n {
		m.Tiles = append(m.Tiles, tile{Seconds: float64(first+k) / 2})
	}
	b, _ := json.Marshal(m)
	return b
}

func put(t *testing.T, path string, b []byte) int64 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// TestCost: every file of an episode directory counts in exactly one
// kind; tokens come from vlm_tokens, else from the size rule; the time
// is end - start when closed, else the end of the last contact-sheet
// tile (a half-full last sheet counts the time it covers, not a whole
// sheet's); temporary files of an atomic write do not count.
func TestCost(t *testing.T) {
	store := t.TempDir()
	s, err := Open(store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin(Begin{Robot: "arm-01", Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	dir := w.Dir()
	var contact, label, snip int64
	for cam, name := range []string{"/cam/front", "/cam/wrist"} {
		_ = cam
		contact += put(t, filepath.Join(SheetDir(dir, name), "sheet-0001.jpg"), make([]byte, 1000))
		contact += put(t, filepath.Join(SheetDir(dir, name), "sheet-0001.json"), sheetJSON(1120, 504, 516, 0, 20))
		// the half-full last sheet: 10 tiles, 5 s; no vlm_tokens (older
		// metadata): the rule on 1120 x 252 gives 516
		contact += put(t, filepath.Join(SheetDir(dir, name), "sheet-0002.jpg"), make([]byte, 600))
		contact += put(t, filepath.Join(SheetDir(dir, name), "sheet-0002.json"), sheetJSON(1120, 252, 0, 20, 10))
		label += put(t, filepath.Join(LabelDir(dir, name), "label-0000.jpg"), make([]byte, 300))
		label += put(t, filepath.Join(LabelDir(dir, name), "label-0000.json"), sheetJSON(672, 252, 258, 0, 5))
		snip += put(t, SnippetPath(dir, name, 1), make([]byte, 70))
		snip += put(t, SnippetPath(dir, name, 2), make([]byte, 50))
	}
	put(t, filepath.Join(SheetDir(dir, "/cam/front"), ".sheet-0003.jpg.tmp123"), make([]byte, 5000))

	c, err := ReadCost(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := dirSize(t, dir) - contact - label - snip - 5000
	want := Cost{ContactBytes: contact, LabelBytes: label, SnippetBytes: snip, OtherBytes: other,
		Bytes: contact + label + snip + other, ContactSheets: 4, LabelSheets: 2, Snippets: 4,
		ContactTokens: 4 * 516, LabelTokens: 2 * 258, Tokens: 4*516 + 2*258, Cameras: 2, Seconds: 15}
	want.BytesPerCameraHour = float64(want.Bytes) / (15 * 2 / 3600.0)
	want.TokensPerCameraHour = float64(want.Tokens) / (15 * 2 / 3600.0)
	if !costEqual(c, want) {
		t.Errorf("open episode:\n got  %+v\n want %+v", c, want)
	}
	if other <= 0 {
		t.Errorf("the manifest and records count as other: %d", other)
	}

	// Closed after 20 s: the episode time is end - start.
	if err := w.Close(t0.Add(20*time.Second), Completed, EndIdle); err != nil {
		t.Fatal(err)
	}
	c, err = ReadCost(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Seconds != 20 || math.Abs(c.TokensPerCameraHour-float64(want.Tokens)*3600/40) > 1e-6 {
		t.Errorf("closed episode: %+v", c)
	}
	e, err := Load("", dir)
	if err != nil || !costEqual(e.Cost, c) {
		t.Errorf("Load's cost %+v, ReadCost %+v (%v)", e.Cost, c, err)
	}
	// The timeline's cost line (episode/view) prints this String.
	if s := e.Cost.String(); !strings.Contains(s, fmt.Sprintf("%d VLM tokens", want.Tokens)) {
		t.Errorf("cost line lacks the tokens: %s", s)
	}

	// Unreadable sheet metadata is an error, not a silent 0.
	put(t, filepath.Join(LabelDir(dir, "/cam/front"), "label-0001.json"), []byte("{not json"))
	if _, err := ReadCost(dir); err == nil {
		t.Error("corrupt sheet metadata: no error")
	}
	if e, _ := Load("", dir); len(e.Problems) == 0 {
		t.Error("Load of a directory with corrupt sheet metadata reports no problem")
	}
}

func costEqual(a, b Cost) bool {
	close := func(x, y float64) bool { return math.Abs(x-y) < 1e-6*max(1, math.Abs(y)) }
	ok := close(a.BytesPerCameraHour, b.BytesPerCameraHour) && close(a.TokensPerCameraHour, b.TokensPerCameraHour)
	a.BytesPerCameraHour, a.TokensPerCameraHour, b.BytesPerCameraHour, b.TokensPerCameraHour = 0, 0, 0, 0
	return ok && a == b
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestReceiverCost: a receiver's manifest carries the cost line of what
// it holds once the episode is complete (not before), equal to what
// ReadCost finds there but for the manifest's own growth.
func TestReceiverCost(t *testing.T) {
	dir := t.TempDir()
	r := openRecv(t, dir)
	m := Manifest{Format: 1, ID: rid, Robot: "arm-01", Start: t0}
	if _, err := r.Manifest("arm-01", m); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Segment("arm-01", rid, rseg(0, "PICK")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sheet("arm-01", rid, "/cam", "sheet-0001", false, []byte{0xff, 0xd8, 1, 2}, sheetJSON(1120, 504, 516, 0, 20)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snippet("arm-01", rid, "/cam", 1, make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	epDir := filepath.Join(dir, rid)
	if got := readM(t, epDir); got.Cost != nil {
		t.Errorf("incomplete episode has a cost line: %+v", got.Cost)
	}
	m.Closed, m.End, m.Segments, m.Outcome = true, t0.Add(10*time.Second), 1, Completed
	m.Produced = map[string]CameraCounts{"cam": {Sheets: 1, Snippets: 1}}
	completed, err := r.Manifest("arm-01", m)
	if err != nil || !completed {
		t.Fatalf("end manifest: completed %v, %v", completed, err)
	}
	got := readM(t, epDir)
	if got.Cost == nil {
		t.Fatal("complete episode has no cost line")
	}
	c, err := ReadCost(epDir)
	if err != nil {
		t.Fatal(err)
	}
	// The manifest read by the receiver's walk is the one before the
	// cost was added: only other_bytes may differ, by the cost's size.
	grew := c.OtherBytes - got.Cost.OtherBytes
	c.OtherBytes, c.Bytes, c.BytesPerCameraHour = got.Cost.OtherBytes, got.Cost.Bytes, got.Cost.BytesPerCameraHour
	if !costEqual(*got.Cost, c) || grew < 0 || grew > 2048 {
		t.Errorf("manifest cost %+v\nReadCost      %+v (other bytes grew by %d)", *got.Cost, c, grew)
	}
	if got.Cost.ContactTokens != 516 || got.Cost.SnippetBytes != 40 || got.Cost.Seconds != 10 || got.Cost.Cameras != 1 {
		t.Errorf("cost %+v", *got.Cost)
	}
	// The same end manifest again changes nothing (no rewrite).
	before, _ := os.ReadFile(filepath.Join(epDir, ManifestFile))
	if _, err := r.Manifest("arm-01", m); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(epDir, ManifestFile))
	if string(before) != string(after) {
		t.Errorf("a duplicate end manifest rewrote the manifest:\n%s\n%s", before, after)
	}
}

func readM(t *testing.T, dir string) Manifest {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestKnownTokens: a camera's announced tokens stand for its sheets'
// metadata, per kind of sheet, only when the files counted are exactly
// what was announced, of a closed episode, with plausible tokens.
func TestKnownTokens(t *testing.T) {
	end := t0.Add(10 * time.Second)
	closed := func(produced CameraCounts) *Manifest {
		return &Manifest{Start: t0, End: end, Closed: true, Produced: map[string]CameraCounts{"a": produced}}
	}
	announced := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2, SheetTokens: 1032, LabelTokens: 516}
	with := func(f func(c *CameraCounts)) CameraCounts { c := announced; f(&c); return c }
	tests := []struct {
		name           string
		m              *Manifest
		cam            string
		sheets, labels int
		contact, label int
	}{
		{"exactly what was announced", closed(announced), "a", 2, 1, 1032, 516},
		{"closed without an end time", &Manifest{Start: t0, Closed: true, Produced: map[string]CameraCounts{"a": announced}}, "a", 2, 1, 1032, 516},
		{"an older robot", closed(CameraCounts{Sheets: 2, LabelSheets: 1}), "a", 2, 1, -1, -1},
		{"more contact sheets than announced", closed(announced), "a", 3, 1, -1, 516},
		{"fewer labeling sheets than announced", closed(announced), "a", 2, 0, 1032, -1},
		{"a camera not announced", closed(announced), "b", 1, 0, -1, -1},
		{"labels without tokens", closed(with(func(c *CameraCounts) { c.LabelTokens = 0 })), "a", 2, 1, 1032, -1},
		{"negative tokens", closed(with(func(c *CameraCounts) { c.SheetTokens = -5 })), "a", 2, 1, -1, 516},
		{"fewer tokens than two sheets cost", closed(with(func(c *CameraCounts) { c.SheetTokens = 300 })), "a", 2, 1, -1, 516},
		{"more tokens than two sheets can cost", closed(with(func(c *CameraCounts) { c.SheetTokens = 1e12 })), "a", 2, 1, -1, 516},
		{"open", &Manifest{Start: t0, End: end, Produced: map[string]CameraCounts{"a": announced}}, "a", 2, 1, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contact, label := knownTokens(tt.m, tt.cam, tt.sheets, tt.labels)
			if contact != tt.contact || label != tt.label {
				t.Errorf("got %d %d, want %d %d", contact, label, tt.contact, tt.label)
			}
		})
	}
}

// announcedEpisode has two shared receivers take an episode of sheets
// sheets (516 tokens each, announced by its end manifest; their
// metadata is {}): receiver 0 its start and end, receiver files the
// rest. It returns the store and each receiver's counts.
func announcedEpisode(t *testing.T, sheets, files int) (dir string, c [2]*countingBlobs) {
	t.Helper()
	dir, r, c := sharedPair(t)
	start, end, msgs := sharedEpisode(rid, sheets)
	cam := end.Produced["cam"]
	cam.SheetTokens = sheets * 516
	end.Produced = map[string]CameraCounts{"cam": cam}
	for _, m := range []Manifest{start, end} {
		if _, err := r[0].Manifest("arm-01", m); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range msgs {
		if _, err := f(r[files]); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	return dir, c
}

// TestCostCountsTheFilesNotTheManifest: a complete episode's cost read
// back after a sheet is gone (retention, an operator) counts the tokens
// of the sheets that are there, not the announced ones, whatever the
// manifest's held says.
func TestCostCountsTheFilesNotTheManifest(t *testing.T) {
	const sheets = 4
	dir, _ := announcedEpisode(t, sheets, 0)
	epDir := filepath.Join(dir, rid)
	if c, err := ReadCost(epDir); err != nil || c.ContactTokens != sheets*516 {
		t.Fatalf("complete: %d contact tokens, %v; want %d", c.ContactTokens, err, sheets*516)
	}
	if err := os.Remove(filepath.Join(epDir, SheetsDir, "cam", SheetName(0)+".json")); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCost(epDir)
	if err != nil {
		t.Fatal(err)
	}
	// The remaining sheets' metadata is {}: 0 tokens each when read.
	if c.ContactSheets != sheets-1 || c.ContactTokens != 0 {
		t.Errorf("a sheet removed: %d sheets, %d tokens; want %d sheets and their metadata's 0 tokens", c.ContactSheets, c.ContactTokens, sheets-1)
	}
}

// TestCompletionUsesAnnouncedTokens: a receiver completing an episode
// whose end manifest announced its sheets' tokens reads no sheet's
// metadata for the cost line (a GET per sheet on an object store, paid
// by the sink that completes most episodes), and the cost carries the
// announced tokens.
func TestCompletionUsesAnnouncedTokens(t *testing.T) {
	const sheets = 6
	dir, c := announcedEpisode(t, sheets, 1)
	for name, n := range c[1].gets {
		if strings.HasPrefix(name, "sheet-") && strings.HasSuffix(name, ".json") {
			t.Errorf("the completing receiver read %s %d times", name, n)
		}
	}
	got := readM(t, filepath.Join(dir, rid))
	if !got.Complete || got.Cost == nil || got.Cost.ContactTokens != sheets*516 || got.Cost.ContactSheets != sheets {
		t.Fatalf("complete %v, cost %+v; want %d contact tokens of %d sheets", got.Complete, got.Cost, sheets*516, sheets)
	}
}

// TestCostGets: one episode read (LoadBlobs) of an episode of many
// sheets reads the metadata of no sheet whose tokens are known: what
// its robot announced, per camera and kind of sheet, or the cost line
// the receiver that completed it wrote; only an episode without a time
// reads its last sheet per camera. (Every sheet's metadata was read,
// a GET each on an object store, unless every camera's files were
// exactly the announced ones.)
func TestCostGets(t *testing.T) {
	const sheets, labels = 40, 6
	end := t0.Add(time.Duration(sheets*10) * time.Second)
	announced := CameraCounts{Sheets: sheets, LabelSheets: labels, SheetTokens: sheets * 516, LabelTokens: labels * 258}
	older := CameraCounts{Sheets: sheets, LabelSheets: labels}
	stored := &Cost{ContactSheets: 2 * sheets, LabelSheets: 2 * labels, ContactTokens: 2 * sheets * 516, LabelTokens: 2 * labels * 258}
	for _, tc := range []struct {
		name     string
		m        Manifest
		lacking  bool // camera b lacks its last contact sheet
		maxMetas int  // sheet metadata read
	}{
		{"announced", Manifest{End: end, Closed: true, Produced: map[string]CameraCounts{"a": announced, "b": announced}}, false, 0},
		{"an older robot's, complete with its cost line",
			Manifest{End: end, Closed: true, Complete: true, Cost: stored, Produced: map[string]CameraCounts{"a": older, "b": older}}, false, 0},
		{"closed without an end time", Manifest{Closed: true, Produced: map[string]CameraCounts{"a": announced, "b": announced}}, false, 2},
		{"one camera lacks a sheet", Manifest{End: end, Closed: true, Produced: map[string]CameraCounts{"a": announced, "b": announced}}, true, sheets - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := blob.Dir{Root: t.TempDir()}
			tc.m.Format, tc.m.Robot, tc.m.Start = ManifestFormat, "arm-01", t0
			b, err := json.Marshal(tc.m)
			must(t, err)
			putBlob(t, store, "ep/"+manifestName, b)
			for _, cam := range []string{"a", "b"} {
				n := sheets
				if tc.lacking && cam == "b" {
					n--
				}
				for i := 1; i <= n; i++ {
					putBlob(t, store, fmt.Sprintf("ep/sheets/%s/%s.jpg", cam, SheetName(i)), []byte("\xff\xd8 a sheet"))
					putBlob(t, store, fmt.Sprintf("ep/sheets/%s/%s.json", cam, SheetName(i)), sheetJSON(1120, 504, 516, 20*(i-1), 20))
				}
				for i := range labels {
					putBlob(t, store, fmt.Sprintf("ep/labels/%s/%s.json", cam, LabelName(i)), sheetJSON(672, 252, 258, 0, 5))
				}
			}
			c := newCounting(store)
			e, err := LoadBlobs(c, "ep")
			must(t, err)
			metas, gets := 0, 0
			for name, n := range c.gets {
				gets += n
				if strings.HasSuffix(name, ".json") && name != manifestName {
					metas += n
				}
			}
			wantSheets := 2 * sheets
			if tc.lacking {
				wantSheets--
			}
			if metas > tc.maxMetas || e.Cost.ContactSheets != wantSheets || e.Cost.ContactTokens != wantSheets*516 ||
				e.Cost.LabelTokens != 2*labels*258 || e.Cost.Seconds != float64(sheets*10) || len(e.Problems) != 0 {
				t.Errorf("%d sheet metadata read (at most %d), cost %+v, problems %v", metas, tc.maxMetas, e.Cost, e.Problems)
			}
			t.Logf("%d GETs (%d of sheet metadata) for %d sheets", gets, metas, wantSheets+2*labels)
		})
	}
}

func putBlob(t *testing.T, b blob.Blobs, name string, body []byte) {
	t.Helper()
	if _, err := b.Put(name, body, blob.Cond{}); err != nil {
		t.Fatal(err)
	}
}
