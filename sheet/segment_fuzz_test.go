package sheet

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzSheet is the sheet FuzzSegmentImage builds from its arguments: two
// tiles, tick 0 at row 0, column 0 and tick 1 wherever the fuzzer says.
func fuzzSheet(data []byte, w, h, tw, th, row, col int) Sheet {
	return Sheet{JPEG: data, Meta: Meta{Kind: "episode", Index: 1, IntervalSeconds: 0.5, Width: w, Height: h,
		TileWidth: tw, TileHeight: th, Tiles: []TileMeta{{Tick: 0}, {Tick: 1, Seconds: 0.5, FrameSeconds: 0.5, Row: row, Column: col}}}}
}

// FuzzSegmentImage: whatever the sheet, its metadata and the arguments,
// SegmentImage returns an image within maxSide or an error, never
// panics. Seeds: testdata/fuzz/FuzzSegmentImage (TestWriteSegmentSeeds)
// and cut or corrupted variants of a real sheet.
func FuzzSegmentImage(f *testing.F) {
	small := contactSheets(f, smallRecipe(), 64, 48, 2*time.Second)[0]
	m := small.Meta
	f.Add(small.JPEG[:len(small.JPEG)/2], m.Width, m.Height, m.TileWidth, m.TileHeight, 0, 1, 0.0, 1.0, 768)
	f.Add(small.JPEG, m.Width, m.Height, m.TileWidth, m.TileHeight, 3, 1, 0.0, 0.5, 16)
	f.Add(small.JPEG, m.Width, m.Height, m.TileWidth, m.TileHeight, 0, 1, 0.2, 0.3, 16)
	f.Fuzz(func(t *testing.T, data []byte, w, h, tw, th, row, col int, from, to float64, side int) {
		side %= 1100 // larger is refused the same way, and slow to fuzz
		j, err := SegmentImage([]Sheet{fuzzSheet(data, w, h, tw, th, row, col)}, from, to, side, 50)
		if err != nil {
			return
		}
		gw, gh, _ := decodeRGB(t, j)
		if gw < 1 || gh < 1 || gw > side || gh > side {
			t.Fatalf("image %dx%d for maxSide %d", gw, gh, side)
		}
	})
}

// smallRecipe makes small sheets: 2 x 2 tiles of 32 px.
func smallRecipe() Recipe {
	r := DefaultRecipe()
	r.TileWidth, r.Columns, r.Rows = 32, 2, 2
	return r
}

// TestWriteSegmentSeeds regenerates testdata/fuzz/FuzzSegmentImage when
// SHEET_WRITE_FUZZ_SEEDS=1.
func TestWriteSegmentSeeds(t *testing.T) {
	if os.Getenv("SHEET_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set SHEET_WRITE_FUZZ_SEEDS=1 to regenerate the seeds")
	}
	s := contactSheets(t, smallRecipe(), 64, 48, 2*time.Second)[0]
	m := s.Meta
	dir := filepath.Join("testdata", "fuzz", "FuzzSegmentImage")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]struct {
		row, col int
		from, to float64
		side     int
	}{
		"sheet":        {0, 1, 0, 1, 768},
		"one-tile":     {0, 1, 0, 1, 20},
		"outside":      {2, 0, 0, 1, 768},
		"nearest":      {1, 0, 0.6, 0.7, 64},
		"blank":        {0, 1, 5, 6, 8},
		"bad-max-side": {0, 1, 0, 1, 0},
	} {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nint(%d)\nint(%d)\nint(%d)\nint(%d)\nint(%d)\nint(%d)\nfloat64(%g)\nfloat64(%g)\nint(%d)\n",
			s.JPEG, m.Width, m.Height, m.TileWidth, m.TileHeight, a.row, a.col, a.from, a.to, a.side)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
