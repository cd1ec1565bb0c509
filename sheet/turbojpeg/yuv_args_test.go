//go:build cgo && !purego

package turbojpeg

import (
	"bytes"
	"errors"
	"testing"
)

// TestDecodeYUVIntoArgs: planes placed in larger buffers get the packed
// decode's pixels and nothing around them changes; planes too short, a
// header that is not the data's, and bad arguments are errors before
// anything is written (a truncated scan fails part way).
func TestDecodeYUVIntoArgs(t *testing.T) {
	j, d, hd := decoderFor(t, encodeTest(t, 1280, 720))
	const num, w, h, cw, ch = 2, 320, 180, 160, 90
	want := yuvImage(w, h, Subsamp420)
	if _, _, err := d.DecodeYUVInto(j, hd, num, want); err != nil {
		t.Fatal(err)
	}
	lying := hd
	lying.Subsamp = Subsamp444
	small := hd
	small.Width /= 2
	for _, tc := range []struct {
		name           string
		data           []byte
		hd             Header
		num            int
		strideY, strC  int
		shortY, shortC int // bytes cut from the planes' ends
		wantErr        error
	}{
		{"padded rows", j, hd, num, w + 6, cw + 4, 0, 0, nil},
		{"packed", j, hd, num, w, cw, 0, 0, nil},
		{"Y stride below a row", j, hd, num, w - 1, cw, 0, 0, ErrArgument},
		{"chroma stride below a row", j, hd, num, w, cw - 1, 0, 0, ErrArgument},
		{"Y plane one byte short", j, hd, num, w, cw, 1, 0, ErrArgument},
		{"chroma plane one byte short", j, hd, num, w, cw, 0, 1, ErrArgument},
		{"bad scale", j, hd, 9, w, cw, 0, 0, ErrArgument},
		{"no header", j, Header{}, num, w, cw, 0, 0, ErrArgument},
		{"header says 4:4:4", j, lying, num, 2 * w, 2 * cw, 0, 0, ErrCorrupt},
		{"header says half the width", j, small, num, w, cw, 0, 0, ErrCorrupt},
		{"empty", nil, hd, num, w, cw, 0, 0, ErrEmpty},
		{"truncated scan", j[:len(j)/2], hd, num, w, cw, 0, 0, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const guard = 8
			var p YUV
			bufs := [3][]byte{}
			for c := range 3 {
				s, ph, pw, cut := tc.strideY, h, w, tc.shortY
				if c > 0 {
					s, ph, pw, cut = tc.strC, ch, cw, tc.shortC
				}
				if c > 0 && tc.hd.Subsamp == Subsamp444 {
					ph, pw = h, w
				}
				n := max(s*(ph-1)+pw, 0)
				bufs[c] = bytes.Repeat([]byte{0xAB}, n+2*guard)
				p.Planes[c], p.Strides[c] = bufs[c][guard:guard+n-cut], s
			}
			_, _, err := d.DecodeYUVInto(tc.data, tc.hd, tc.num, p)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			for c := range 3 {
				b := bufs[c]
				if !bytes.Equal(b[:guard], bytes.Repeat([]byte{0xAB}, guard)) || !bytes.Equal(b[len(b)-guard:], bytes.Repeat([]byte{0xAB}, guard)) {
					t.Fatalf("plane %d: bytes around it changed", c)
				}
				if tc.wantErr != nil {
					if tc.name == "truncated scan" { // fails while decoding: rows may be written
						continue
					}
					if bytes.Count(b, []byte{0xAB}) != len(b) {
						t.Fatalf("plane %d written despite the error", c)
					}
					continue
				}
				pw := w
				if c > 0 {
					pw = cw
				}
				for y := 0; y < len(want.Planes[c])/pw; y++ {
					if !bytes.Equal(p.Planes[c][y*p.Strides[c]:y*p.Strides[c]+pw], want.Planes[c][y*pw:(y+1)*pw]) {
						t.Fatalf("plane %d row %d differs from the packed decode", c, y)
					}
				}
			}
		})
	}
}

// TestEncodeYUVArgs: planes that do not hold the image, and bad quality
// or subsampling, are ErrArgument.
func TestEncodeYUVArgs(t *testing.T) {
	e, _ := NewEncoder()
	defer e.Close()
	ok := yuvImage(32, 24, Subsamp420)
	short := ok
	short.Planes[2] = ok.Planes[2][:len(ok.Planes[2])-1]
	narrow := ok
	narrow.Strides[1] = 15
	for _, tc := range []struct {
		name    string
		src     YUV
		w, h, q int
		sub     Subsamp
		wantErr error
	}{
		{"fits", ok, 32, 24, 84, Subsamp420, nil},
		{"gray from the Y plane", ok, 32, 24, 84, SubsampGray, nil},
		{"Cr plane short", short, 32, 24, 84, Subsamp420, ErrArgument},
		{"Cb stride below a row", narrow, 32, 24, 84, Subsamp420, ErrArgument},
		{"planes too small for 4:4:4", ok, 32, 24, 84, Subsamp444, ErrArgument},
		{"quality 0", ok, 32, 24, 0, Subsamp420, ErrArgument},
		{"subsampling 7", ok, 32, 24, 84, Subsamp(7), ErrArgument},
		{"zero width", ok, 0, 24, 84, Subsamp420, ErrArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.EncodeYUV(nil, tc.src, tc.w, tc.h, tc.q, tc.sub); !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// FuzzDecodeYUV: any bytes, decoded to planes sized from their header or
// to planes sized for a header that lies, give an error or the image,
// never a panic or a write past the planes (the header is checked again
// in C). Seeds: the FuzzBackendsAgree ones and their cut variants.
func FuzzDecodeYUV(f *testing.F) {
	for _, j := range generatedJPEGs(f) {
		f.Add(j)
		f.Add(j[:len(j)/2])
	}
	d, err := NewDecoder(Limits{MaxWidth: 2048, MaxHeight: 2048, MaxPixels: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	lie := Header{Width: 40, Height: 24, Subsamp: Subsamp420}
	fixed := yuvImage(Scaled(lie.Width, 2), Scaled(lie.Height, 2), lie.Subsamp)
	f.Fuzz(func(t *testing.T, j []byte) {
		if _, _, err := d.DecodeYUVInto(j, lie, 2, fixed); err == nil {
			if hd, herr := d.Header(j); herr != nil || hd != lie {
				t.Fatalf("decoded into planes for %+v a JPEG whose header is %+v (%v)", lie, hd, herr)
			}
		}
		hd, err := d.Header(j)
		if err != nil || hd.Subsamp > SubsampGray {
			return
		}
		w, h := Scaled(hd.Width, 2), Scaled(hd.Height, 2)
		gw, gh, err := d.DecodeYUVInto(j, hd, 2, yuvImage(w, h, hd.Subsamp))
		if err == nil && (gw != w || gh != h) {
			t.Fatalf("decoded %dx%d, want %dx%d", gw, gh, w, h)
		}
	})
}
