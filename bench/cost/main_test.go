package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/sampledata"
)

// TestBudget builds an episode with a segment every 12 s from the real
// 1280x720 frames of pan720p.mp4 (at 30 fps, cycled) through the robot's
// pipeline into a sink's store, for the published recipe and the
// low-cost preset, and checks the cost line of the sink's copy against
// issue 9's budget per camera-hour, bytes and tokens, strictly (issue
// 25: labeling sheets composed in the cloud, snippets in format 2); the
// tokens show every contact sheet and every segment's labeling image
// once (25 segments x 258, none shipped: composed in the cloud).
//
// The episode lasts 5 minutes less 50 ms: 25 segments (the last 50 ms
// shorter) and 30 full contact sheets. A tick exactly at the end would
// add a one-tile sheet costing a whole sheet's 516 tokens, which a
// 5-minute episode cannot amortize but an hour does (make bench shows
// the 10-minute figure with it).
func TestBudget(t *testing.T) {
	frames := panFrames(t)
	p := budgetEpisode
	p.Duration = 5*time.Minute - 50*time.Millisecond
	for _, b := range budgets() {
		t.Run(b.preset, func(t *testing.T) {
			c, dir, err := buildEpisode(t.TempDir(), frames, b.recipe, p)
			if err != nil {
				t.Fatal(err)
			}
			if c.ContactSheets != 30 || c.LabelSheets != 0 || c.Snippets != 30 || c.Cameras != 1 {
				t.Fatalf("episode %+v", c)
			}
			m, err := episode.List(filepath.Dir(dir))
			if err != nil || len(m) != 1 || !m[0].Complete || m[0].Cost == nil || m[0].Cost.Tokens != c.Tokens {
				t.Fatalf("the sink's manifest: %+v, %v", m, err)
			}
			t.Logf("%s per camera-hour: %.1f MB (contact %.1f, labeling %.1f, snippets %.1f), %.0f tokens",
				b.preset, c.BytesPerCameraHour/1e6, float64(c.ContactBytes)/1e6*3600/c.Seconds,
				float64(c.LabelBytes)/1e6*3600/c.Seconds, float64(c.SnippetBytes)/1e6*3600/c.Seconds, c.TokensPerCameraHour)
			if want := 25 * episode.ComposedLabelTokens; c.LabelTokens != want || c.Tokens != c.ContactTokens+want {
				t.Errorf("labeling images %d tokens (total %d, contact %d), want %d: one composed image a segment",
					c.LabelTokens, c.Tokens, c.ContactTokens, want)
			}
			if c.TokensPerCameraHour > b.tokens {
				t.Errorf("%.0f VLM tokens per camera-hour, budget %.0f", c.TokensPerCameraHour, b.tokens)
			}
			if mbh := c.BytesPerCameraHour / 1e6; mbh > b.bytes/1e6 {
				t.Errorf("%.1f MB shipped per camera-hour, budget %.0f MB", mbh, b.bytes/1e6)
			}
		})
	}
}

// panFrames extracts the 300 1280x720 frames of pan720p.mp4 (10 s at
// 30 fps) with ffmpeg at the quality the sheet tests use.
func panFrames(t *testing.T) [][]byte {
	t.Helper()
	mp4 := sampledata.Path(t, "pan720p.mp4")
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed (make deps): needed to extract frames from pan720p.mp4")
	}
	dir := t.TempDir()
	if out, err := exec.Command(ff, "-loglevel", "error", "-i", mp4, "-q:v", "3", filepath.Join(dir, "f%04d.jpg")).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	frames, err := readFrames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 300 {
		t.Fatalf("%d frames, want 300", len(frames))
	}
	_ = os.RemoveAll(dir)
	return frames
}
