package report

import (
	"bytes"
	"fmt"
	"image"
	imgcolor "image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// noisyJPEG is about the size of a real camera contact sheet (a noise
// texture compresses about as badly as a busy scene).
func noisyJPEG(tb testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(x/4 + y/4 + r.IntN(24))
			img.Set(x, y, imgcolor.RGBA{v, v / 2, 255 - v, 255})
		}
	}
	var b bytes.Buffer
	must(tb, jpeg.Encode(&b, img, &jpeg.Options{Quality: 84}))
	return b.Bytes()
}

// oneHour records a one-hour episode the size edged run makes with the
// default recipe: 3 cameras, a 10 s sheet each (360 per camera), 360
// segments each with a labeling sheet per camera.
func oneHour(b *testing.B) *fixture {
	var segs []segSpec
	for i := 0; i < 360; i++ {
		segs = append(segs, segSpec{fmt.Sprintf("step %d of the task", i%7), float64(i) * 10, float64(i+1) * 10, episode.Completed})
	}
	f := record(b, segs, "one hour of pick and place")
	sheetJPEG, labelJPEG := noisyJPEG(b, 1120, 504), noisyJPEG(b, 1120, 126)
	for _, cam := range []string{"/cam/front", "/cam/left", "/cam/wrist"} {
		w, err := sheet.NewDirWriter(filepath.Join(f.epDir, "sheets", sanitize(cam)))
		must(b, err)
		for i := 0; i < 360; i++ {
			m := meta("episode", cam, 5, 4)
			m.Index = i + 1
			for k := 0; k < 20; k++ {
				m.Tiles = append(m.Tiles, tile(int64(i*20+k), k/5, k%5, false))
			}
			must(b, w.Write(&sheet.Sheet{Meta: m, JPEG: sheetJPEG}))
			l := meta("label", cam, 5, 1)
			for k := 0; k < 5; k++ {
				l.Tiles = append(l.Tiles, tile(int64(i*20+k*4), 0, k, false))
			}
			must(b, w.Write(&sheet.Sheet{Meta: l, JPEG: labelJPEG}))
		}
	}
	return f
}

func BenchmarkReportOneHour(b *testing.B) {
	f := oneHour(b)
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		s, err := Write(&buf, f.epDir, Options{})
		must(b, err)
		size = buf.Len()
		if d := os.Getenv("EDGED_REPORT_SCREENSHOT"); d != "" && i == 0 {
			must(b, os.WriteFile(filepath.Join(d, "one-hour.html"), buf.Bytes(), 0o644))
		}
		if i == 0 {
			b.Logf("one-hour episode: %d of %d sheets, %d labeling sheets, %.1f MB of images, HTML %.1f MB",
				s.Sheets, s.Sheets+s.SheetsOmitted, s.LabelSheets, float64(s.ImageBytes)/(1<<20), float64(size)/(1<<20))
		}
	}
	b.SetBytes(int64(size))
	b.ReportMetric(float64(size)/(1<<20), "html-MB")
}
