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

// TestProducedTokens: the announced tokens stand for the sheets'
// metadata only when the files counted are exactly what was announced,
// of a closed episode, with plausible tokens for every camera.
func TestProducedTokens(t *testing.T) {
	end := t0.Add(10 * time.Second)
	closed := func(produced map[string]CameraCounts) *Manifest {
		return &Manifest{Start: t0, End: end, Closed: true, Produced: produced}
	}
	counts := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2}
	announced := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2, SheetTokens: 1032, LabelTokens: 516}
	with := func(f func(c *CameraCounts)) CameraCounts { c := announced; f(&c); return c }
	one := map[string]CameraCounts{"a": counts}
	tests := []struct {
		name           string
		m              *Manifest
		held           map[string]CameraCounts
		contact, label int
		ok             bool
	}{
		{"exactly what was announced", closed(map[string]CameraCounts{"a": announced}), one, 1032, 516, true},
		{"two cameras", closed(map[string]CameraCounts{"a": announced,
			"b": {Sheets: 2, Snippets: 2, SheetTokens: 516}}),
			map[string]CameraCounts{"a": counts, "b": {Sheets: 2, Snippets: 2}}, 1548, 516, true},
		{"an older robot", closed(one), one, 0, 0, false},
		{"more files than announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": {Sheets: 3, LabelSheets: 1, Snippets: 2}}, 0, 0, false},
		{"fewer files than announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": {Sheets: 2, Snippets: 2}}, 0, 0, false},
		{"a camera not announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": counts, "b": {Sheets: 1}}, 0, 0, false},
		{"labels without tokens", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.LabelTokens = 0 })}), one, 0, 0, false},
		{"tokens of a camera without sheets", closed(map[string]CameraCounts{"a": announced, "b": {SheetTokens: 1000}}), one, 0, 0, false},
		{"negative tokens", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = -5 })}), one, 0, 0, false},
		{"fewer tokens than two sheets cost", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = 300 })}), one, 0, 0, false},
		{"more tokens than two sheets can cost", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = 1e12 })}), one, 0, 0, false},
		{"open", &Manifest{Start: t0, End: end, Produced: map[string]CameraCounts{"a": announced}}, one, 0, 0, false},
		{"closed without an end time", &Manifest{Start: t0, Closed: true, Produced: map[string]CameraCounts{"a": announced}}, one, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contact, label, ok := producedTokens(tt.m, tt.held)
			if contact != tt.contact || label != tt.label || ok != tt.ok {
				t.Errorf("got %d %d %v, want %d %d %v", contact, label, ok, tt.contact, tt.label, tt.ok)
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
