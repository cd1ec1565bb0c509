package sheet

import (
	"testing"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

var fuzzEncodings = []string{"rgb8", "bgr8", "rgba8", "bgra8", "mono8", "mono16", "yuv422", "yuv422_yuy2",
	"bayer_rggb8", "bayer_bggr8", "bayer_gbrg8", "bayer_grbg8", "32FC1", ""}

var fuzzLimits = turbojpeg.Limits{MaxWidth: 1024, MaxHeight: 1024, MaxPixels: 1 << 18}

func FuzzRawToRGB(f *testing.F) {
	f.Add(uint8(0), 2, 2, 6, false, make([]byte, 12))
	f.Add(uint8(7), 3, 1, 6, true, []byte{1, 2, 3, 4, 5, 6})
	f.Add(uint8(8), 3, 3, 3, false, make([]byte, 9))
	f.Fuzz(func(t *testing.T, enc uint8, w, h, step int, be bool, data []byte) {
		e := fuzzEncodings[int(enc)%len(fuzzEncodings)]
		out, err := RawToRGB(nil, e, w, h, step, be, data, fuzzLimits)
		if err == nil && len(out) != w*h*3 {
			t.Fatalf("%s %dx%d: %d bytes out", e, w, h, len(out))
		}
		// The whole tile path too, for the same input.
		tl, _ := NewTiler(fuzzLimits)
		defer tl.Close()
		_, _ = tl.RenderTile(nil, 32, 24, Image{Format: capture.FormatRaw, Encoding: e, Width: w, Height: h, Step: step, BigEndian: be, Data: data})
	})
}

func FuzzTileJPEG(f *testing.F) {
	f.Add(testJPEG(f, 40, 30, [3]byte{1, 2, 3}))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xD9})
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	tl, _ := NewTiler(fuzzLimits)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []capture.FrameFormat{capture.FormatJPEG, capture.FormatPNG} {
			out, err := tl.RenderTile(nil, 32, 24, Image{Format: format, Data: data})
			if err == nil && len(out) != 32*24*3 {
				t.Fatalf("tile of %d bytes", len(out))
			}
		}
	})
}
