package sheet

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet/recipe"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// ErrFormat: a frame format (not raw encoding) edged cannot decode.
var ErrFormat = errors.New("sheet: unsupported frame format")

// Image is the part of a frame a tile needs: what capture.Frame and
// ringbuf.Meta carry, with the bytes.
type Image struct {
	Format    capture.FrameFormat
	Encoding  string // raw: the ROS encoding
	Width     int    // raw only
	Height    int    // raw only
	Step      int    // raw only
	BigEndian bool   // raw only
	Data      []byte
}

// Tiler turns frames into tiles. It owns a TurboJPEG decoder and scratch
// buffers that are reused (no allocation per tile in steady state for
// JPEG and raw frames; PNG goes through image/png and allocates). Not safe
// for concurrent use: one per goroutine. Close frees the decoder.
type Tiler struct {
	limits turbojpeg.Limits
	dec    *turbojpeg.Decoder
	enc    *turbojpeg.Encoder
	dbuf   []byte // decoded JPEG
	rbuf   []byte // raw converted to RGB
	rs     resizer
}

// NewTiler returns a tiler enforcing limits (zero fields: defaults).
func NewTiler(limits turbojpeg.Limits) (*Tiler, error) {
	limits = withDefaultLimits(limits)
	dec, enc, err := newCodecs(limits)
	if err != nil {
		return nil, err
	}
	return &Tiler{limits: limits, dec: dec, enc: enc}, nil
}

// newCodecs opens the decoder (within limits) and the encoder a Tiler
// or a composer holds, both or neither.
func newCodecs(limits turbojpeg.Limits) (*turbojpeg.Decoder, *turbojpeg.Encoder, error) {
	dec, err := turbojpeg.NewDecoder(limits)
	if err != nil {
		return nil, nil, err
	}
	enc, err := turbojpeg.NewEncoder()
	if err != nil {
		dec.Close()
		return nil, nil, err
	}
	return dec, enc, nil
}

// Close frees the TurboJPEG handles.
func (t *Tiler) Close() {
	t.dec.Close()
	t.enc.Close()
}

// Size returns a frame's full dimensions without decoding its pixels.
func (t *Tiler) Size(im Image) (w, h int, err error) {
	switch im.Format {
	case capture.FormatJPEG:
		hd, err := t.dec.Header(im.Data)
		return hd.Width, hd.Height, err
	case capture.FormatPNG:
		cfg, err := png.DecodeConfig(bytes.NewReader(im.Data))
		if err != nil {
			return 0, 0, fmt.Errorf("%w: png header: %v", turbojpeg.ErrCorrupt, err)
		}
		return cfg.Width, cfg.Height, t.limits.Check(cfg.Width, cfg.Height)
	case capture.FormatRaw:
		if err := CheckRaw(im.Encoding, im.Width, im.Height, im.Step, len(im.Data), t.limits); err != nil {
			return 0, 0, err
		}
		return im.Width, im.Height, nil
	}
	return 0, 0, fmt.Errorf("%w %d", ErrFormat, im.Format)
}

// TileHeight is the tile height keeping a w x h frame's aspect ratio at
// tile width tw (at least 1). The builder caps it (Recipe.MaxTileHeight).
func TileHeight(tw, w, h int) int { return recipe.TileHeight(tw, w, h) }

// source decodes a raw or PNG frame to packed RGB (JPEG: renderJPEG).
func (t *Tiler) source(im Image) (pix []byte, w, h, stride int, err error) {
	switch im.Format {
	case capture.FormatRaw:
		if im.Encoding == "rgb8" { // resize straight from the message
			if err := CheckRaw(im.Encoding, im.Width, im.Height, im.Step, len(im.Data), t.limits); err != nil {
				return nil, 0, 0, 0, err
			}
			return im.Data, im.Width, im.Height, im.Step, nil
		}
		t.rbuf, err = RawToRGB(t.rbuf, im.Encoding, im.Width, im.Height, im.Step, im.BigEndian, im.Data, t.limits)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		return t.rbuf, im.Width, im.Height, 3 * im.Width, nil
	case capture.FormatPNG:
		return t.decodePNG(im.Data)
	}
	return nil, 0, 0, 0, fmt.Errorf("%w %d", ErrFormat, im.Format)
}

func (t *Tiler) decodePNG(data []byte) (pix []byte, w, h, stride int, err error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: png header: %v", turbojpeg.ErrCorrupt, err)
	}
	if err := t.limits.Check(cfg.Width, cfg.Height); err != nil {
		return nil, 0, 0, 0, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: png: %v", turbojpeg.ErrCorrupt, err)
	}
	b := img.Bounds()
	w, h = b.Dx(), b.Dy()
	t.rbuf = growBytes(t.rbuf, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, bl, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			_ = a // alpha is composited on black by RGBA's premultiplication
			i := (y*w + x) * 3
			t.rbuf[i], t.rbuf[i+1], t.rbuf[i+2] = byte(r>>8), byte(g>>8), byte(bl>>8)
		}
	}
	return t.rbuf, w, h, 3 * w, nil
}

// render draws im into the tile m (tw x th), scaled to fit keeping its
// aspect ratio and centred on black bars when the aspect differs.
func (t *Tiler) render(m rgbImage, im Image) error {
	if im.Format == capture.FormatJPEG {
		return t.renderJPEG(m, im.Data)
	}
	pix, w, h, stride, err := t.source(im)
	if err != nil {
		return err
	}
	p := m.place(w, h)
	t.rs.resize(p.pix, p.w, p.h, p.stride, pix, w, h, stride)
	return nil
}

// renderJPEG decodes at the DCT scale that gives at least the tile's
// pixels. When that scale lands exactly on the tile's place, libjpeg-turbo
// writes straight into it (pitch: the canvas stride) and nothing else
// touches the pixels; otherwise it decodes to the scratch buffer and the
// area filter writes the tile.
func (t *Tiler) renderJPEG(m rgbImage, data []byte) error {
	hd, err := t.dec.Header(data)
	if err != nil {
		return err
	}
	num := turbojpeg.ScaleFor(hd.Width, hd.Height, m.w, m.h)
	w, h := turbojpeg.Scaled(hd.Width, num), turbojpeg.Scaled(hd.Height, num)
	p := m.place(w, h)
	if p.w == w && p.h == h {
		_, _, err = t.dec.DecodeInto(data, hd, num, p.pix, p.stride)
		return err
	}
	t.dbuf = growBytes(t.dbuf, turbojpeg.RGBSize(w, h))
	if _, _, err = t.dec.DecodeInto(data, hd, num, t.dbuf, 3*w); err != nil {
		return err
	}
	t.rs.resize(p.pix, p.w, p.h, p.stride, t.dbuf, w, h, 3*w)
	return nil
}

// place returns the part of m a w x h image scaled to fit it (keeping
// its aspect ratio) covers, centred; the bars around it are painted black.
func (m rgbImage) place(w, h int) rgbImage {
	fw, fh := m.w, TileHeight(m.w, w, h)
	if fh > m.h { // taller than the tile: fit the height
		fh = m.h
		fw = max(1, (m.h*w+h/2)/h)
		fw = min(fw, m.w)
	}
	if fw == m.w && fh == m.h {
		return m
	}
	m.fill(0, 0, m.w, m.h, [3]byte{})
	ox, oy := (m.w-fw)/2, (m.h-fh)/2
	return rgbImage{pix: m.pix[oy*m.stride+ox*3:], w: fw, h: fh, stride: m.stride}
}

// RenderTile renders im as a standalone tw x th tile (packed RGB, no
// badge) into dst, grown when too small.
func (t *Tiler) RenderTile(dst []byte, tw, th int, im Image) ([]byte, error) {
	dst = growBytes(dst, tw*th*3)
	return dst, t.render(rgbImage{pix: dst, w: tw, h: th, stride: tw * 3}, im)
}

// placeholder draws the tile shown when a camera had no frame near a tick.
func placeholder(m rgbImage) {
	m.fill(0, 0, m.w, m.h, [3]byte{90, 90, 90})
	m.fill(1, 1, m.w-1, m.h-1, [3]byte{40, 40, 40})
	m.drawCentered(placeholderText, [3]byte{170, 170, 170})
}

var placeholderText = []byte("NO FRAME")

func growBytes(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n)
}
