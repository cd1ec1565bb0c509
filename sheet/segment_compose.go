package sheet

import (
	"fmt"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// composer draws chosen tiles of contact sheets into a SegmentImage
// canvas: one TurboJPEG decoder and encoder, the decoded sheet it crops
// from (sheets are decoded once each when their tiles come in time
// order), and a resizer for tiles that must change size.
type composer struct {
	dec  *turbojpeg.Decoder
	enc  *turbojpeg.Encoder
	rs   resizer
	dbuf []byte // the decoded sheet cur
	cur  int    // index of the decoded sheet, -1: none
	w, h int    // its size
}

func newComposer() (*composer, error) {
	dec, enc, err := newCodecs(contactLimits)
	if err != nil {
		return nil, err
	}
	return &composer{dec: dec, enc: enc, cur: -1}, nil
}

func (c *composer) close() {
	c.dec.Close()
	c.enc.Close()
}

// compose draws p's tiles and encodes the image.
func (c *composer) compose(sheets []Sheet, p segmentPlan, quality int) ([]byte, error) {
	cols, cw, ch := p.cols, p.cw, p.ch
	w, h := cols*cw, p.rows*ch
	canvas := make([]byte, w*h*3) // black where a row is not full
	for i, t := range p.tiles {
		src, err := c.tile(sheets, t)
		if err != nil {
			return nil, err
		}
		dst := gridCell(canvas, cols, cw, ch, i)
		if src.w == cw && src.h == ch {
			for y := 0; y < ch; y++ {
				copy(dst.pix[y*dst.stride:y*dst.stride+cw*3], src.pix[y*src.stride:])
			}
			continue
		}
		c.rs.resize(dst.pix, cw, ch, dst.stride, src.pix, src.w, src.h, src.stride)
	}
	j, err := c.enc.Encode(nil, canvas, w, h, w*3, quality, turbojpeg.Subsamp420)
	if err != nil {
		return nil, fmt.Errorf("sheet: segment image: encode %dx%d: %w", w, h, err)
	}
	return append([]byte(nil), j...), nil // j's capacity is the worst case
}

// tile returns the view of tile t in its decoded sheet, decoding and
// checking the sheet first when it is not the current one.
func (c *composer) tile(sheets []Sheet, t segTile) (rgbImage, error) {
	if t.sheet != c.cur {
		if err := c.load(&sheets[t.sheet], t.sheet); err != nil {
			c.cur = -1
			return rgbImage{}, err
		}
		c.cur = t.sheet
	}
	m := &sheets[t.sheet].Meta
	tm := m.Tiles[t.tile]
	tw, th := m.TileWidth, m.TileHeight
	return rgbImage{pix: c.dbuf[(tm.Row*th*c.w+tm.Column*tw)*3:], w: tw, h: th, stride: c.w * 3}, nil
}

// load decodes sheet s (number si in the caller's slice) and checks that
// its metadata describes it: its size, and every tile inside it.
func (c *composer) load(s *Sheet, si int) error {
	m := &s.Meta
	if err := checkTileSize(m, si); err != nil {
		return err
	}
	bad := func(err error) error {
		return fmt.Errorf("%w: sheet %d (index %d) does not decode as a contact sheet: %w", ErrSegmentInput, si, m.Index, err)
	}
	hd, err := c.dec.Header(s.JPEG) // sizes checked before pixels are allocated
	if err != nil {
		return bad(err)
	}
	if hd.Width != m.Width || hd.Height != m.Height {
		return fmt.Errorf("%w: sheet %d (index %d): the JPEG is %dx%d, its metadata says %dx%d (pass each sheet with its own metadata)",
			ErrSegmentInput, si, m.Index, hd.Width, hd.Height, m.Width, m.Height)
	}
	w, h, pix, err := c.dec.Decode(s.JPEG, 8, c.dbuf)
	if err != nil {
		return bad(err)
	}
	c.dbuf, c.w, c.h = pix, w, h
	cols, rows := w/m.TileWidth, h/m.TileHeight
	for i, tm := range m.Tiles {
		if tm.Column < 0 || tm.Row < 0 || tm.Column >= cols || tm.Row >= rows {
			return fmt.Errorf("%w: sheet %d (index %d): tile %d at row %d, column %d lies outside the %dx%d image of %dx%d tiles (pass each sheet with its own metadata)",
				ErrSegmentInput, si, m.Index, i, tm.Row, tm.Column, w, h, m.TileWidth, m.TileHeight)
		}
	}
	return nil
}
