package store

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
)

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
		contact += episodetest.Put(t, filepath.Join(episode.SheetDir(dir, name), "sheet-0001.jpg"), make([]byte, 1000))
		contact += episodetest.Put(t, filepath.Join(episode.SheetDir(dir, name), "sheet-0001.json"), episodetest.SheetJSON(1120, 504, 516, 0, 20))
		// the half-full last sheet: 10 tiles, 5 s; no vlm_tokens (older
		// metadata): the rule on 1120 x 252 gives 516
		contact += episodetest.Put(t, filepath.Join(episode.SheetDir(dir, name), "sheet-0002.jpg"), make([]byte, 600))
		contact += episodetest.Put(t, filepath.Join(episode.SheetDir(dir, name), "sheet-0002.json"), episodetest.SheetJSON(1120, 252, 0, 20, 10))
		label += episodetest.Put(t, filepath.Join(episode.LabelDir(dir, name), "label-0000.jpg"), make([]byte, 300))
		label += episodetest.Put(t, filepath.Join(episode.LabelDir(dir, name), "label-0000.json"), episodetest.SheetJSON(672, 252, 258, 0, 5))
		snip += episodetest.Put(t, episode.SnippetPath(dir, name, 1), make([]byte, 70))
		snip += episodetest.Put(t, episode.SnippetPath(dir, name, 2), make([]byte, 50))
	}
	episodetest.Put(t, filepath.Join(episode.SheetDir(dir, "/cam/front"), ".sheet-0003.jpg.tmp123"), make([]byte, 5000))

	c, err := episode.ReadCost(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := dirSize(t, dir) - contact - label - snip - 5000
	want := episode.Cost{ContactBytes: contact, LabelBytes: label, SnippetBytes: snip, OtherBytes: other,
		Bytes: contact + label + snip + other, ContactSheets: 4, LabelSheets: 2, Snippets: 4,
		ContactTokens: 4 * 516, LabelSheetTokens: 2 * 258, LabelTokens: 2 * 258, Tokens: 4*516 + 2*258, Cameras: 2, Seconds: 15}
	want.BytesPerCameraHour = float64(want.Bytes) / (15 * 2 / 3600.0)
	want.TokensPerCameraHour = float64(want.Tokens) / (15 * 2 / 3600.0)
	if !episodetest.CostEqual(c, want) {
		t.Errorf("open episode:\n got  %+v\n want %+v", c, want)
	}
	if other <= 0 {
		t.Errorf("the manifest and records count as other: %d", other)
	}

	// Closed after 20 s: the episode time is end - start.
	if err := w.Close(t0.Add(20*time.Second), episode.Completed, episode.EndIdle); err != nil {
		t.Fatal(err)
	}
	c, err = episode.ReadCost(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Seconds != 20 || math.Abs(c.TokensPerCameraHour-float64(want.Tokens)*3600/40) > 1e-6 {
		t.Errorf("closed episode: %+v", c)
	}
	e, err := episode.Load("", dir)
	if err != nil || !episodetest.CostEqual(e.Cost, c) {
		t.Errorf("Load's cost %+v, ReadCost %+v (%v)", e.Cost, c, err)
	}
	// The timeline's cost line (episode/view) prints this String.
	if s := e.Cost.String(); !strings.Contains(s, fmt.Sprintf("%d VLM tokens", want.Tokens)) {
		t.Errorf("cost line lacks the tokens: %s", s)
	}

	// Unreadable sheet metadata is an error, not a silent 0.
	episodetest.Put(t, filepath.Join(episode.LabelDir(dir, "/cam/front"), "label-0001.json"), []byte("{not json"))
	if _, err := episode.ReadCost(dir); err == nil {
		t.Error("corrupt sheet metadata: no error")
	}
	if e, _ := episode.Load("", dir); len(e.Problems) == 0 {
		t.Error("Load of a directory with corrupt sheet metadata reports no problem")
	}
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
