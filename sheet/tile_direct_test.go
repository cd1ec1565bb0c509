package sheet

import (
	"testing"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// patternJPEG encodes a w x h image whose every pixel differs from its
// neighbours (gradients plus a checker), so a tile written at the wrong
// place or stride cannot match.
func patternJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	pix := make([]byte, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 3
			pix[i] = byte(x * 255 / w)
			pix[i+1] = byte(y * 255 / h)
			pix[i+2] = byte(((x/16 + y/16) % 2) * 200)
		}
	}
	e, err := turbojpeg.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	j, err := e.Encode(nil, pix, w, h, w*3, 90, turbojpeg.Subsamp420)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), j...)
}

// oldPathTile renders data into a standalone tw x th tile the way tiles
// were made before the direct decode: decode at the DCT scale into a
// scratch buffer, then the area filter into the (letterboxed) tile.
func oldPathTile(t *testing.T, tl *Tiler, data []byte, tw, th int) []byte {
	t.Helper()
	hd, err := tl.dec.Header(data)
	if err != nil {
		t.Fatal(err)
	}
	num := turbojpeg.ScaleFor(hd.Width, hd.Height, tw, th)
	w, h, pix, err := tl.dec.Decode(data, num, nil)
	if err != nil {
		t.Fatal(err)
	}
	tile := rgbImage{pix: make([]byte, tw*th*3), w: tw, h: th, stride: tw * 3}
	p := tile.place(w, h)
	var rs resizer
	rs.resize(p.pix, p.w, p.h, p.stride, pix, w, h, 3*w)
	return tile.pix
}

// TestDirectDecodeIntoTile: when the DCT scale lands exactly on the tile
// (or on its letterboxed place), the frame is decoded straight into the
// sheet canvas (no scratch buffer) with the same pixels as the old path,
// at the cell's place and stride, and nothing outside the cell changes.
func TestDirectDecodeIntoTile(t *testing.T) {
	const tw, th, cols, rows = 224, 126, 3, 2
	for _, tc := range []struct {
		name   string
		w, h   int
		direct bool
	}{
		{"896x504 at 2/8", 896, 504, true},
		{"448x252 at 4/8", 448, 252, true},
		{"1792x1008 at 1/8", 1792, 1008, true},
		{"896x672 at 2/8 into a 16:9 tile, letterboxed", 896, 672, false},
		{"1280x720 resized", 1280, 720, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := NewTiler(turbojpeg.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer tl.Close()
			data := patternJPEG(t, tc.w, tc.h)
			stride := cols * tw * 3
			canvas := make([]byte, stride*rows*th)
			for i := range canvas {
				canvas[i] = 0xAB
			}
			x0, y0 := 2*tw, th // cell (row 1, column 2)
			cell := rgbImage{pix: canvas[y0*stride+x0*3:], w: tw, h: th, stride: stride}
			if err := tl.render(cell, Image{Format: capture.FormatJPEG, Data: data}); err != nil {
				t.Fatal(err)
			}
			if direct := tl.dbuf == nil; direct != tc.direct {
				t.Errorf("decoded straight into the tile = %v, want %v", direct, tc.direct)
			}
			ref := oldPathTile(t, tl, data, tw, th)
			for y := 0; y < rows*th; y++ {
				for x := 0; x < cols*tw; x++ {
					i := y*stride + x*3
					got := canvas[i : i+3]
					in := x >= x0 && y >= y0 && x < x0+tw && y < y0+th
					if !in {
						if got[0] != 0xAB || got[1] != 0xAB || got[2] != 0xAB {
							t.Fatalf("pixel (%d,%d) outside the cell changed to %v", x, y, got)
						}
						continue
					}
					r := ref[((y-y0)*tw+x-x0)*3:]
					for c := 0; c < 3; c++ {
						if d := int(got[c]) - int(r[c]); d < -1 || d > 1 {
							t.Fatalf("tile pixel (%d,%d) = %v, old path %v", x-x0, y-y0, got, r[:3])
						}
					}
				}
			}
		})
	}
}
