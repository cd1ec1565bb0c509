// Package episodetest holds the fixtures of tests that write or read
// episodes (episode/store, sink/receive): when their episodes start, a
// sheet's metadata as the sheet package writes it, files put into an
// episode directory, cost lines compared. Tests only.
package episodetest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// T0 is when the fixtures' episodes start.
var T0 = time.Unix(1776842526, 0).UTC()

// SheetJSON is a sheet's metadata as the sheet package writes it (the
// fields the cost reads): n tiles from tick first, 0.5 s apart.
func SheetJSON(w, h, tokens int, first, n int) []byte {
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

// Put writes b to path, creating its directory, and returns its size.
func Put(t testing.TB, path string, b []byte) int64 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// CostEqual reports whether two cost lines are equal, their rates
// within rounding.
func CostEqual(a, b episode.Cost) bool {
	close := func(x, y float64) bool { return math.Abs(x-y) < 1e-6*max(1, math.Abs(y)) }
	ok := close(a.BytesPerCameraHour, b.BytesPerCameraHour) && close(a.TokensPerCameraHour, b.TokensPerCameraHour)
	a.BytesPerCameraHour, a.TokensPerCameraHour, b.BytesPerCameraHour, b.TokensPerCameraHour = 0, 0, 0, 0
	return ok && a == b
}
