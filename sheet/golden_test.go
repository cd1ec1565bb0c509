package sheet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// TestGoldenPan720p builds a sheet from 20 real 1280x720 frames (every
// 15th of pan720p.mp4, i.e. one per 0.5 s) and checks its geometry, tile
// order, timestamps and badge placement against tiles rendered alone.
func TestGoldenPan720p(t *testing.T) {
	paths := panFrames(t, 15)
	if len(paths) != 20 {
		t.Fatalf("extracted %d frames, want 20", len(paths))
	}
	out := t.TempDir()
	sum, err := BuildFiles(paths, FPSStamps(len(paths), 2), DefaultRecipe(), "/pan", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Sheets) != 1 || sum.Placeholders != 0 || sum.Refused != 0 {
		t.Fatalf("summary %s", sum)
	}
	m := sum.Sheets[0]
	if m.Width != 1120 || m.Height != 504 || m.TileWidth != 224 || m.TileHeight != 126 || m.Rows != 4 || m.Columns != 5 || m.Tokens != 516 || m.Quality != 84 {
		t.Fatalf("geometry %+v", m)
	}
	jpeg, err := os.ReadFile(filepath.Join(out, "sheet-0001.jpg"))
	if err != nil || len(jpeg) != m.Bytes {
		t.Fatalf("sheet-0001.jpg: %v (%d bytes, meta says %d)", err, len(jpeg), m.Bytes)
	}
	var all Summary
	js, _ := os.ReadFile(filepath.Join(out, "sheets.json"))
	if err := json.Unmarshal(js, &all); err != nil || all.TotalTokens != 516 || len(all.Sheets) != 1 {
		t.Fatalf("sheets.json: %v %+v", err, all)
	}
	tl, err := NewTiler(turbojpeg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	sw, sh, sheetPix, err := tl.dec.Decode(jpeg, 8, nil)
	if err != nil || sw != 1120 || sh != 504 {
		t.Fatalf("decode sheet: %v %dx%d", err, sw, sh)
	}
	sheetImg := rgbImage{pix: sheetPix, w: sw, h: sh, stride: sw * 3}
	var tb [24]byte
	_, badgeH := rgbImage{pix: make([]byte, 224*126*3), w: 224, h: 126, stride: 224 * 3}.drawBadge(formatSeconds(&tb, 0))
	var ref []byte
	for i, tm := range m.Tiles {
		if tm.Tick != int64(i) || tm.Seconds != float64(i)/2 || tm.Row != i/5 || tm.Column != i%5 || tm.Placeholder {
			t.Fatalf("tile %d meta %+v", i, tm)
		}
		x0, y0 := tm.Column*224, tm.Row*126
		// Badge: black box at the tile's top-left with white glyphs.
		if p := sheetImg.pix[(y0+1)*sheetImg.stride+(x0+1)*3:]; p[0] > 40 || p[1] > 40 {
			t.Errorf("tile %d: badge corner is %v, want black", i, p[:3])
		}
		cell := rgbImage{pix: sheetPix[y0*sheetImg.stride+x0*3:], w: 224, h: 126, stride: sheetImg.stride}
		if first, last := inkRows(rgbImage{pix: cell.pix, w: 80, h: badgeH, stride: cell.stride}); first < 0 || last-first+1 < 14 {
			// JPEG may shave 255 to 254: look for near-white.
			if !hasBright(cell, 80, badgeH) {
				t.Errorf("tile %d: no white glyphs in the badge", i)
			}
		}
		// Tile order: below the badge the tile matches frame i rendered alone
		// much better than frame i+5.
		data, _ := os.ReadFile(paths[i])
		ref, err = tl.RenderTile(ref, 224, 126, Image{Format: capture.FormatJPEG, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		own := meanAbsDiff(cell, ref, badgeH)
		other := own
		if i+5 < len(paths) {
			d2, _ := os.ReadFile(paths[i+5])
			ref2, _ := tl.RenderTile(nil, 224, 126, Image{Format: capture.FormatJPEG, Data: d2})
			other = meanAbsDiff(cell, ref2, badgeH)
		}
		if own > 6 || (i+5 < len(paths) && other < 2*own) {
			t.Errorf("tile %d: mean abs diff to its frame %.1f, to frame %d %.1f", i, own, i+5, other)
		}
	}
}

func hasBright(m rgbImage, w, h int) bool {
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if m.pix[y*m.stride+3*x] > 200 {
				n++
			}
		}
	}
	return n > 50
}

func meanAbsDiff(cell rgbImage, ref []byte, skipRows int) float64 {
	var sum, n int
	for y := skipRows; y < cell.h; y++ {
		for x := 0; x < cell.w*3; x++ {
			d := int(cell.pix[y*cell.stride+x]) - int(ref[y*cell.w*3+x])
			if d < 0 {
				d = -d
			}
			sum += d
			n++
		}
	}
	return float64(sum) / float64(n)
}

// TestFullRateMatchesSampled: the 300 frames at 30 fps give the same
// ticks and frames as the 20 pre-sampled ones.
func TestFullRateMatchesSampled(t *testing.T) {
	paths := panFrames(t, 1)
	sum, err := BuildFiles(paths, FPSStamps(len(paths), 30), DefaultRecipe(), "/pan", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Sheets) != 1 || len(sum.Sheets[0].Tiles) != 20 {
		t.Fatalf("summary %s", sum)
	}
	for i, tm := range sum.Sheets[0].Tiles {
		if tm.FrameSeconds != tm.Seconds || tm.Seconds != float64(i)/2 {
			t.Fatalf("tile %d: frame at %v s for tick at %v s", i, tm.FrameSeconds, tm.Seconds)
		}
	}
}

// TestBuildFilesGap: a recording with a 2 s gap gets placeholders exactly
// on the ticks inside the gap, and the frames around it are kept.
func TestBuildFilesGap(t *testing.T) {
	dir := t.TempDir()
	img := testJPEG(t, 64, 36, [3]byte{200, 200, 0})
	var paths []string
	var stamps []time.Time
	for i := 0; i < 20; i++ {
		at := 0.5 * float64(i)
		if at >= 3 && at <= 4.5 {
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("f%02d.jpg", i))
		if err := os.WriteFile(p, img, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		stamps = append(stamps, epoch.Add(time.Duration(at*float64(time.Second))))
	}
	sum, err := BuildFiles(paths, stamps, DefaultRecipe(), "/gap", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range sum.Sheets[0].Tiles {
		want := tm.Seconds >= 3 && tm.Seconds <= 4.5
		if tm.Placeholder != want {
			t.Errorf("tick %v s: placeholder %v, want %v", tm.Seconds, tm.Placeholder, want)
		}
	}
	if sum.Placeholders != 4 {
		t.Fatalf("summary %s", sum)
	}
}
