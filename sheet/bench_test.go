package sheet

import (
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// benchSheets streams 20 real 720p frames per sheet through a ring into
// one long-lived builder (as edged run does); one op is one sheet.
func benchSheets(b *testing.B, noCache bool) {
	paths := panFrames(b, 15)
	var frames [][]byte
	var total int64
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		frames = append(frames, d)
		total += int64(len(d))
	}
	ring := newRing(b, ringbuf.Config{MaxBytes: 16 << 20, MaxAge: 3 * time.Second})
	bl, err := NewBuilder(BuilderConfig{Camera: "/bench", Recipe: DefaultRecipe(), Start: epoch, Source: ring,
		NoTileCache: noCache, Emit: func(*Sheet) error { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	defer bl.Close()
	n := 0
	sheet := func() {
		for _, f := range frames {
			fr := capture.Frame{Stamp: epoch.Add(time.Duration(n) * 500 * time.Millisecond), Format: capture.FormatJPEG, Data: f}
			if err := ring.Put(&fr); err != nil {
				b.Fatal(err)
			}
			if err := bl.Advance(fr.Stamp); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	sheet()
	sheet()
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		sheet()
	}
}

// BenchmarkSheet20 is 20 frames of 1280x720 JPEG -> one sheet (0 allocs).
func BenchmarkSheet20(b *testing.B) { benchSheets(b, true) }

// BenchmarkSheet20Cached also keeps every tile for labeling sheets.
func BenchmarkSheet20Cached(b *testing.B) { benchSheets(b, false) }

// BenchmarkRawTile is one raw rgb8 1280x720 frame -> one 224 px tile.
func BenchmarkRawTile(b *testing.B) {
	for _, enc := range []string{"rgb8", "bgr8", "bayer_rggb8"} {
		b.Run(enc, func(b *testing.B) {
			bpp := 3
			if enc == "bayer_rggb8" {
				bpp = 1
			}
			data := make([]byte, 1280*720*bpp)
			for i := range data {
				data[i] = byte(i * 7)
			}
			tl, err := NewTiler(turbojpeg.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			defer tl.Close()
			im := Image{Format: capture.FormatRaw, Encoding: enc, Width: 1280, Height: 720, Step: 1280 * bpp, Data: data}
			dst, _ := tl.RenderTile(nil, 224, 126, im)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if dst, err = tl.RenderTile(dst, 224, 126, im); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResize is the area filter alone on one 720p frame decoded at
// 2/8 (320x180) -> one 224x126 tile, the default recipe's resize.
func BenchmarkResize(b *testing.B) {
	const sw, sh, dw, dh = 320, 180, 224, 126
	src := make([]byte, sw*sh*3)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, dw*dh*3)
	var rs resizer
	rs.resize(dst, dw, dh, dw*3, src, sw, sh, sw*3)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		rs.resize(dst, dw, dh, dw*3, src, sw, sh, sw*3)
	}
}
