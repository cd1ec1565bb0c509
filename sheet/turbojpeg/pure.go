package turbojpeg

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
)

// The pure-Go backend is compiled in every build: the purego build
// selects it as Decoder and Encoder (purego.go), and the cgo build's
// differential test compares it with libjpeg-turbo on the same inputs
// (diff_test.go), so neither drifts unnoticed.

// pureDecoder decodes JPEGs with image/jpeg. Not safe for concurrent
// use: one per goroutine, like the cgo version.
type pureDecoder struct {
	limits Limits
}

func newPureDecoder(limits Limits) *pureDecoder {
	return &pureDecoder{limits: limits.orDefault()}
}

// Close is a no-op kept for API parity.
func (d *pureDecoder) Close() {}

// Header reads the JPEG header and checks the dimensions against the limits.
func (d *pureDecoder) Header(data []byte) (Header, error) {
	if len(data) == 0 {
		return Header{}, ErrEmpty
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Header{}, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if err := d.limits.Check(cfg.Width, cfg.Height); err != nil {
		return Header{}, err
	}
	return Header{Width: cfg.Width, Height: cfg.Height, Subsamp: Subsamp420}, nil
}

// Decode decodes jpeg to packed RGB at num/8 of its size into dst (grown
// if too small). The scaling is a box filter over the full decode.
func (d *pureDecoder) Decode(data []byte, num int, dst []byte) (w, h int, rgb []byte, err error) {
	if err := checkScale(num); err != nil {
		return 0, 0, nil, err
	}
	hd, err := d.Header(data)
	if err != nil {
		return 0, 0, nil, err
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%w: decode: %v", ErrCorrupt, err)
	}
	w, h = Scaled(hd.Width, num), Scaled(hd.Height, num)
	rgb = grow(dst, RGBSize(w, h))
	boxScale(img, rgb, w, h)
	return w, h, rgb, nil
}

// DecodeInto decodes data at num/8 into dst with rows pitch bytes apart
// (see the cgo Decoder's DecodeInto). The pure backend decodes to a
// temporary image first.
func (d *pureDecoder) DecodeInto(data []byte, hd Header, num int, dst []byte, pitch int) (w, h int, err error) {
	w, h, err = checkInto(data, hd, num, len(dst), pitch)
	if err != nil {
		return 0, 0, err
	}
	sw, sh, rgb, err := d.Decode(data, num, nil)
	if err != nil {
		return 0, 0, err
	}
	w, h = min(w, sw), min(h, sh)
	for y := 0; y < h; y++ {
		copy(dst[y*pitch:y*pitch+3*w], rgb[y*3*sw:])
	}
	return w, h, nil
}

// boxScale averages the source pixels falling into each destination pixel.
func boxScale(img image.Image, dst []byte, w, h int) {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl, n uint32
			for sy := y0; sy < y1 && sy < sh; sy++ {
				for sx := x0; sx < x1 && sx < sw; sx++ {
					cr, cg, cb, _ := img.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
					r, g, bl, n = r+cr>>8, g+cg>>8, bl+cb>>8, n+1
				}
			}
			if n == 0 {
				n = 1
			}
			i := (y*w + x) * 3
			dst[i], dst[i+1], dst[i+2] = byte(r/n), byte(g/n), byte(bl/n)
		}
	}
}

// pureEncoder encodes packed RGB with image/jpeg (always 4:2:0 colour,
// or gray when sub is SubsampGray).
type pureEncoder struct{}

// Close is a no-op kept for API parity.
func (e *pureEncoder) Close() {}

// Encode compresses a w x h packed RGB image (rows stride bytes apart) at
// quality 1..100, appending to dst[:0]. Returns the JPEG.
func (e *pureEncoder) Encode(dst, rgb []byte, w, h, stride, quality int, sub Subsamp) ([]byte, error) {
	if err := checkEncodeArgs(rgb, w, h, stride, quality, sub); err != nil {
		return nil, err
	}
	var img image.Image
	if sub == SubsampGray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			row := rgb[y*stride:]
			for x := 0; x < w; x++ {
				r, gg, b := uint32(row[3*x]), uint32(row[3*x+1]), uint32(row[3*x+2])
				g.Pix[y*g.Stride+x] = byte((299*r + 587*gg + 114*b + 500) / 1000)
			}
		}
		img = g
	} else {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			row := rgb[y*stride:]
			out := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = row[3*x], row[3*x+1], row[3*x+2], 255
			}
		}
		img = m
	}
	buf := bytes.NewBuffer(dst[:0])
	if err := jpeg.Encode(buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("turbojpeg(purego): encode %dx%d: %w", w, h, err)
	}
	return buf.Bytes(), nil
}
