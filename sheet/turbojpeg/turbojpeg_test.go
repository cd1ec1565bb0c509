package turbojpeg

import (
	"bytes"
	"errors"
	"testing"
)

// gradient returns a w x h packed RGB test image.
func gradient(w, h int) []byte {
	b := make([]byte, RGBSize(w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 3
			b[i], b[i+1], b[i+2] = byte(x*255/w), byte(y*255/h), 128
		}
	}
	return b
}

func encodeTest(t testing.TB, w, h int) []byte {
	t.Helper()
	e, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	j, err := e.Encode(nil, gradient(w, h), w, h, 3*w, 90, Subsamp420)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), j...)
}

// setSOF rewrites the dimensions in the first SOF0/SOF2 marker.
func setSOF(t testing.TB, j []byte, w, h int) []byte {
	t.Helper()
	out := append([]byte(nil), j...)
	for i := 2; i+9 < len(out); i++ {
		if out[i] == 0xFF && (out[i+1] == 0xC0 || out[i+1] == 0xC2) {
			out[i+5], out[i+6] = byte(h>>8), byte(h)
			out[i+7], out[i+8] = byte(w>>8), byte(w)
			return out
		}
	}
	t.Fatal("no SOF marker")
	return nil
}

func TestRoundTripScales(t *testing.T) {
	j := encodeTest(t, 1280, 720)
	d, err := NewDecoder(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hd, err := d.Header(j)
	if err != nil || hd.Width != 1280 || hd.Height != 720 {
		t.Fatalf("header = %+v, %v", hd, err)
	}
	for _, tc := range []struct{ num, w, h int }{{1, 160, 90}, {2, 320, 180}, {4, 640, 360}, {8, 1280, 720}} {
		w, h, rgb, err := d.Decode(j, tc.num, nil)
		if err != nil {
			t.Fatalf("scale %d/8: %v", tc.num, err)
		}
		if w != tc.w || h != tc.h || len(rgb) != w*h*3 {
			t.Fatalf("scale %d/8: got %dx%d (%d bytes), want %dx%d", tc.num, w, h, len(rgb), tc.w, tc.h)
		}
		// The centre pixel keeps the gradient's colour.
		i := (h/2*w + w/2) * 3
		if d := int(rgb[i]) - 127; d < -12 || d > 12 {
			t.Errorf("scale %d/8: centre red %d, want ~127", tc.num, rgb[i])
		}
	}
}

func TestScaleFor(t *testing.T) {
	for _, tc := range []struct{ w, h, minW, minH, want int }{
		{1280, 720, 224, 126, 2},
		{640, 480, 224, 168, 3},
		{1920, 1080, 224, 126, 1},
		{224, 126, 224, 126, 8},
		{100, 50, 224, 112, 8},
	} {
		if got := ScaleFor(tc.w, tc.h, tc.minW, tc.minH); got != tc.want {
			t.Errorf("ScaleFor(%d,%d,%d,%d) = %d, want %d", tc.w, tc.h, tc.minW, tc.minH, got, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := encodeTest(t, 64, 48)
	d, _ := NewDecoder(Limits{MaxWidth: 4096, MaxHeight: 4096, MaxPixels: 4 << 20})
	defer d.Close()
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"zero length", nil, ErrEmpty},
		{"garbage", []byte("definitely not a jpeg at all"), ErrCorrupt},
		{"SOI only", []byte{0xFF, 0xD8}, ErrCorrupt},
		{"truncated header", good[:20], ErrCorrupt},
		{"truncated scan", good[:len(good)/2], ErrCorrupt},
		{"too wide", setSOF(t, good, 60000, 48), ErrTooLarge},
		{"too many pixels", setSOF(t, good, 4000, 4000), ErrTooLarge},
		{"zero width", setSOF(t, good, 0, 48), ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := d.Decode(tc.data, 2, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestEncodeArgs(t *testing.T) {
	e, _ := NewEncoder()
	defer e.Close()
	img := gradient(16, 16)
	for _, tc := range []struct {
		name            string
		w, h, stride, q int
		sub             Subsamp
	}{
		{"quality 0", 16, 16, 48, 0, Subsamp420},
		{"quality 101", 16, 16, 48, 101, Subsamp420},
		{"short stride", 16, 16, 40, 80, Subsamp420},
		{"short buffer", 16, 17, 48, 80, Subsamp420},
		{"bad subsamp", 16, 16, 48, 80, Subsamp(9)},
	} {
		if _, err := e.Encode(nil, img, tc.w, tc.h, tc.stride, tc.q, tc.sub); !errors.Is(err, ErrArgument) {
			t.Errorf("%s: err = %v, want ErrArgument", tc.name, err)
		}
	}
}

func TestEncodeReusesBuffer(t *testing.T) {
	e, _ := NewEncoder()
	defer e.Close()
	img := gradient(224, 126)
	buf, err := e.Encode(nil, img, 224, 126, 672, 84, Subsamp420)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf, []byte{0xFF, 0xD8}) {
		t.Fatal("no SOI")
	}
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		buf, err = e.Encode(buf, img, 224, 126, 672, 84, Subsamp420)
		if err != nil {
			t.Fatal(err)
		}
	})
	if Backend != "purego" && allocs != 0 {
		t.Errorf("Encode allocates %v times per call with a reused buffer", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encodeTest(f, 32, 24))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xD9})
	f.Add([]byte{})
	d, _ := NewDecoder(Limits{MaxWidth: 2048, MaxHeight: 2048, MaxPixels: 1 << 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, h, rgb, err := d.Decode(data, 2, nil)
		if err == nil && len(rgb) != w*h*3 {
			t.Fatalf("decoded %dx%d into %d bytes", w, h, len(rgb))
		}
	})
}

// TestDecodeInto: decoding into a larger image (rows pitch bytes apart)
// gives Decode's pixels at that place and leaves the rest alone; a
// destination too short for the scaled image is refused before decoding.
func TestDecodeInto(t *testing.T) {
	j, d, hd := decoderFor(t, encodeTest(t, 1280, 720))
	w, h, want, err := d.Decode(j, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	const off, pad = 7 * 3, 5 * 3
	for _, tc := range []struct {
		name       string
		pitch, n   int
		num        int
		hd         Header
		data       []byte
		wantErr    error
		checkPixel bool
	}{
		{"into a wider canvas", 3*w + pad, off + (3*w+pad)*h, 2, hd, j, nil, true},
		{"packed", 3 * w, off + 3*w*h, 2, hd, j, nil, true},
		{"pitch below a row", 3*w - 3, off + 3*w*h, 2, hd, j, ErrArgument, false},
		{"buffer one byte short", 3 * w, off + 3*w*h - 1, 2, hd, j, ErrArgument, false},
		{"bad scale", 3 * w, off + 3*w*h, 0, hd, j, ErrArgument, false},
		{"no header", 3 * w, off + 3*w*h, 2, Header{}, j, ErrArgument, false},
		{"empty", 3 * w, off + 3*w*h, 2, hd, nil, ErrEmpty, false},
		{"truncated scan", 3 * w, off + 3*w*h, 2, hd, j[:len(j)/2], ErrCorrupt, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, tc.n+pad)
			for i := range buf {
				buf[i] = 0xAB
			}
			gw, gh, err := d.DecodeInto(tc.data, tc.hd, tc.num, buf[off:tc.n], tc.pitch)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("DecodeInto error = %v, want %v", err, tc.wantErr)
			}
			if !tc.checkPixel {
				return
			}
			if gw != w || gh != h {
				t.Fatalf("size %dx%d, want %dx%d", gw, gh, w, h)
			}
			for y := 0; y < h; y++ {
				row := buf[off+y*tc.pitch:]
				if !bytes.Equal(row[:3*w], want[y*3*w:(y+1)*3*w]) {
					t.Fatalf("row %d differs from Decode", y)
				}
				for i := 3 * w; i < tc.pitch && y < h-1; i++ {
					if row[i] != 0xAB {
						t.Fatalf("row %d: byte %d past the image changed", y, i)
					}
				}
			}
			if buf[off-1] != 0xAB || buf[off+tc.pitch*(h-1)+3*w] != 0xAB {
				t.Fatal("bytes around the image changed")
			}
		})
	}
}

// decoderFor returns j with a decoder (closed when the test ends) and j's
// header.
func decoderFor(t *testing.T, j []byte) ([]byte, *Decoder, Header) {
	t.Helper()
	d, err := NewDecoder(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	hd, err := d.Header(j)
	if err != nil {
		t.Fatal(err)
	}
	return j, d, hd
}
