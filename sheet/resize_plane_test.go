package sheet

import (
	"bytes"
	"fmt"
	"testing"
)

// TestPlaneResizeMatchesRGB: each plane of an image, scaled alone, gives
// exactly that channel of the packed RGB resize (same taps, same
// rounding), for the 3-tap and the generic horizontal loops.
func TestPlaneResizeMatchesRGB(t *testing.T) {
	for _, tc := range []struct{ sw, sh, dw, dh int }{
		{320, 180, 224, 126}, {160, 90, 112, 63}, {160, 90, 77, 43}, {640, 360, 224, 126},
		{3, 3, 2, 2}, {5, 4, 3, 1}, {2, 2, 1, 1}, {100, 80, 99, 79},
	} {
		t.Run(fmt.Sprintf("%dx%d to %dx%d", tc.sw, tc.sh, tc.dw, tc.dh), func(t *testing.T) {
			rgb := make([]byte, tc.sw*tc.sh*3)
			for i := range rgb {
				rgb[i] = byte(i*7 + i/97)
			}
			want := genericResize(rgb, tc.sw, tc.sh, tc.dw, tc.dh)
			var pr PlaneResizer
			for c := 0; c < 3; c++ {
				plane := channel(rgb, c)
				// Rows padded by 5 bytes on both sides: strides are honoured.
				got := make([]byte, (tc.dw+5)*tc.dh)
				if err := pr.Resize(got, tc.dw, tc.dh, tc.dw+5, plane, tc.sw, tc.sh, tc.sw); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(unpad(got, tc.dw, tc.dh, tc.dw+5), channel(want, c)) {
					t.Fatalf("channel %d differs from the RGB resize", c)
				}
			}
		})
	}
}

// TestPlaneResizeRejectsShortBuffers: sizes that do not fit are errors,
// not panics or writes outside the buffers.
func TestPlaneResizeRejectsShortBuffers(t *testing.T) {
	src := make([]byte, 32*16)
	for _, tc := range []struct {
		name            string
		dst             []byte
		dw, dh, dstride int
		src             []byte
		sw, sh, sstride int
	}{
		{"short destination", make([]byte, 15), 4, 4, 4, src, 32, 16, 32},
		{"destination stride below width", make([]byte, 64), 4, 4, 3, src, 32, 16, 32},
		{"short source", make([]byte, 16), 4, 4, 4, src[:100], 32, 16, 32},
		{"zero source", make([]byte, 16), 4, 4, 4, src, 0, 16, 32},
		{"negative destination", make([]byte, 16), -4, 4, 4, src, 32, 16, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pr PlaneResizer
			if err := pr.Resize(tc.dst, tc.dw, tc.dh, tc.dstride, tc.src, tc.sw, tc.sh, tc.sstride); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func channel(rgb []byte, c int) []byte {
	out := make([]byte, len(rgb)/3)
	for i := range out {
		out[i] = rgb[3*i+c]
	}
	return out
}

func unpad(p []byte, w, h, stride int) []byte {
	out := make([]byte, 0, w*h)
	for y := 0; y < h; y++ {
		out = append(out, p[y*stride:y*stride+w]...)
	}
	return out
}

// BenchmarkResizePlanes420 is BenchmarkResize's tile in planar 4:2:0:
// Y 320x180 -> 224x126 and two chroma planes 160x90 -> 112x63 (half
// the samples of packed RGB).
func BenchmarkResizePlanes420(b *testing.B) {
	type plane struct {
		src, dst       []byte
		sw, sh, dw, dh int
	}
	var planes []plane
	for _, s := range [][4]int{{320, 180, 224, 126}, {160, 90, 112, 63}, {160, 90, 112, 63}} {
		p := plane{make([]byte, s[0]*s[1]), make([]byte, s[2]*s[3]), s[0], s[1], s[2], s[3]}
		for i := range p.src {
			p.src[i] = byte(i * 7)
		}
		planes = append(planes, p)
	}
	var rs PlaneResizer
	b.SetBytes(320 * 180 * 3 / 2)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range planes {
			if err := rs.Resize(p.dst, p.dw, p.dh, p.dw, p.src, p.sw, p.sh, p.sw); err != nil {
				b.Fatal(err)
			}
		}
	}
}
