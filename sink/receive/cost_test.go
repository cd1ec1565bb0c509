package receive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob/blobtest"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
)

// TestReceiverCost: a receiver's manifest carries the cost line of what
// it holds once the episode is complete (not before), equal to what
// ReadCost finds there but for the manifest's own growth.
func TestReceiverCost(t *testing.T) {
	dir := t.TempDir()
	r := openRecv(t, dir)
	m := episode.Manifest{Format: 1, ID: rid, Robot: "arm-01", Start: t0}
	if _, err := r.Manifest("arm-01", m); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Segment("arm-01", rid, rseg(0, "PICK")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sheet("arm-01", rid, "/cam", "sheet-0001", false, []byte{0xff, 0xd8, 1, 2}, episodetest.SheetJSON(1120, 504, 516, 0, 20)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snippet("arm-01", rid, "/cam", 1, make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	epDir := filepath.Join(dir, rid)
	if got := readM(t, epDir); got.Cost != nil {
		t.Errorf("incomplete episode has a cost line: %+v", got.Cost)
	}
	m.Closed, m.End, m.Segments, m.Outcome = true, t0.Add(10*time.Second), 1, episode.Completed
	m.Produced = map[string]episode.CameraCounts{"cam": {Sheets: 1, Snippets: 1}}
	completed, err := r.Manifest("arm-01", m)
	if err != nil || !completed {
		t.Fatalf("end manifest: completed %v, %v", completed, err)
	}
	got := readM(t, epDir)
	if got.Cost == nil {
		t.Fatal("complete episode has no cost line")
	}
	c, err := episode.ReadCost(epDir)
	if err != nil {
		t.Fatal(err)
	}
	// The manifest read by the receiver's walk is the one before the
	// cost was added: only other_bytes may differ, by the cost's size.
	grew := c.OtherBytes - got.Cost.OtherBytes
	c.OtherBytes, c.Bytes, c.BytesPerCameraHour = got.Cost.OtherBytes, got.Cost.Bytes, got.Cost.BytesPerCameraHour
	if !episodetest.CostEqual(*got.Cost, c) || grew < 0 || grew > 2048 {
		t.Errorf("manifest cost %+v\nReadCost      %+v (other bytes grew by %d)", *got.Cost, c, grew)
	}
	if got.Cost.ContactTokens != 516 || got.Cost.SnippetBytes != 40 || got.Cost.Seconds != 10 || got.Cost.Cameras != 1 {
		t.Errorf("cost %+v", *got.Cost)
	}
	// The same end manifest again changes nothing (no rewrite).
	before, _ := os.ReadFile(filepath.Join(epDir, episode.ManifestFile))
	if _, err := r.Manifest("arm-01", m); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(epDir, episode.ManifestFile))
	if string(before) != string(after) {
		t.Errorf("a duplicate end manifest rewrote the manifest:\n%s\n%s", before, after)
	}
}

func readM(t *testing.T, dir string) episode.Manifest {
	t.Helper()
	m, err := episode.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// announcedEpisode has two shared receivers take an episode of sheets
// sheets (516 tokens each, announced by its end manifest; their
// metadata is {}): receiver 0 its start and end, receiver files the
// rest. It returns the store and each receiver's counts.
func announcedEpisode(t *testing.T, sheets, files int) (dir string, c [2]*blobtest.Counting) {
	t.Helper()
	dir, r, c := sharedPair(t)
	start, end, msgs := sharedEpisode(rid, sheets)
	cam := end.Produced["cam"]
	cam.SheetTokens = sheets * 516
	end.Produced = map[string]episode.CameraCounts{"cam": cam}
	for _, m := range []episode.Manifest{start, end} {
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
	if c, err := episode.ReadCost(epDir); err != nil || c.ContactTokens != sheets*516 {
		t.Fatalf("complete: %d contact tokens, %v; want %d", c.ContactTokens, err, sheets*516)
	}
	if err := os.Remove(filepath.Join(epDir, episode.SheetsDir, "cam", episode.SheetName(0)+".json")); err != nil {
		t.Fatal(err)
	}
	c, err := episode.ReadCost(epDir)
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
	for name, n := range c[1].Gets {
		if strings.HasPrefix(name, "sheet-") && strings.HasSuffix(name, ".json") {
			t.Errorf("the completing receiver read %s %d times", name, n)
		}
	}
	got := readM(t, filepath.Join(dir, rid))
	if !got.Complete || got.Cost == nil || got.Cost.ContactTokens != sheets*516 || got.Cost.ContactSheets != sheets {
		t.Fatalf("complete %v, cost %+v; want %d contact tokens of %d sheets", got.Complete, got.Cost, sheets*516, sheets)
	}
}
