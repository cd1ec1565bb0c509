package sheet

import (
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// BenchmarkSegmentImage is one 768-px segment image of 8 s (16 ticks,
// 12 shown) across two contact sheets of the sample video's 720p frames,
// against the reference of decoding those two sheets alone; bytes are
// the sheets' JPEG bytes.
func BenchmarkSegmentImage(b *testing.B) {
	paths := panFrames(b, 15)
	frames := make([][]byte, len(paths))
	for i, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		frames[i] = d
	}
	sheets := contactSheetsOf(b, DefaultRecipe(), 30*time.Second, func(k int) []byte { return frames[k%len(frames)] })
	from, to := 6.0, 13.5 // sheets 1 and 2 (0-10 s, 10-20 s)
	bytes := int64(len(sheets[0].JPEG) + len(sheets[1].JPEG))
	b.Run("segment", func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := SegmentImage(sheets, from, to, VLMTile, DefaultQuality); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-decode-sheets", func(b *testing.B) {
		d, err := turbojpeg.NewDecoder(contactLimits)
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		var buf []byte
		b.SetBytes(bytes)
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range sheets[:2] {
				if _, _, buf, err = d.Decode(s.JPEG, 8, buf); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
