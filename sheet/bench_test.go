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

// BenchmarkEpisodeSheets is one 14-s episode of one camera (as in the
// soak: a full sheet of 20 ticks, then a shorter one at Finish) from
// 720p frames at 2 Hz; one op is one episode. "new" builds each episode
// with a new builder (closed after), "reset" with the camera's previous
// one (Builder.Reset), as the pipeline does.
func BenchmarkEpisodeSheets(b *testing.B) {
	var frames [][]byte
	var total int64
	for _, p := range panFrames(b, 15) {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		frames = append(frames, d)
	}
	const ticks = 28
	for i := range ticks {
		total += int64(len(frames[i%len(frames)]))
	}
	for _, reuse := range []bool{false, true} {
		b.Run(map[bool]string{false: "new", true: "reset"}[reuse], func(b *testing.B) {
			ring := newRing(b, ringbuf.Config{MaxBytes: 16 << 20, MaxAge: 3 * time.Second})
			var bl *Builder
			defer func() { bl.Close() }()
			n := 0
			episode := func() {
				start := epoch.Add(time.Duration(n) * 500 * time.Millisecond)
				cfg := BuilderConfig{Camera: "/bench", Recipe: DefaultRecipe(), Start: start, Source: ring,
					NoTileCache: true, Emit: func(*Sheet) error { return nil }}
				var err error
				switch {
				case bl != nil && reuse:
					err = bl.Reset(cfg)
				default:
					if bl != nil {
						bl.Close()
					}
					bl, err = NewBuilder(cfg)
				}
				if err != nil {
					b.Fatal(err)
				}
				var fr capture.Frame
				for i := range ticks {
					fr = capture.Frame{Stamp: epoch.Add(time.Duration(n) * 500 * time.Millisecond), Format: capture.FormatJPEG, Data: frames[i%len(frames)]}
					if err := ring.Put(&fr); err != nil {
						b.Fatal(err)
					}
					if err := bl.Advance(fr.Stamp); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if err := bl.Finish(fr.Stamp); err != nil {
					b.Fatal(err)
				}
				n += 4 // the idle time between episodes
			}
			episode()
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				episode()
			}
		})
	}
}
