package main

// Issue 25's prototype: the contact sheet built in planar YCbCr 4:2:0
// instead of packed RGB. Each frame is decoded at the same DCT scale
// straight to Y, Cb and Cr planes (no YCbCr -> RGB conversion, no chroma
// upsampling), each plane area-filtered with sheet's weights into the
// sheet's planes (Y at the tile size, chroma at half of it), and the
// planes encoded as they are (no RGB -> YCbCr, no chroma downsampling):
// 1.5 samples per pixel to resize instead of 3.
//
// The badge is floor.c's black box (Y 0, chroma 128) without the text
// edged draws; drawing the text in Y (white glyphs, chroma left neutral)
// would need sheet's glyph masks, which are not exported.
//
// Tile origins in the chroma planes are half the luma ones, so tile
// sizes must be even (224 x 126: fine). The low-cost preset's 153-px
// tiles are not: every odd column would start half a chroma sample in
// (see yuvNote).
//
// Measured (scripts/bench-sheet.sh, SHEET_REPS=5, median of 3 runs):
// edged-yuv/edged 0.89, floor-yuv/floor 0.85; the DCT-scaled decode,
// most of the time, costs the same to planes as to RGB (entropy decoding
// dominates at 2/8); the gain is the resize (half the samples, ~2/3 the
// time in Go) and the encoder's colour conversion. Sheets differ by ~1
// level per channel, PSNR ~42 dB (badges left out).
//
// Integrating it into the Builder would take: a planar canvas (rgbImage
// and the tile placement, even tile sizes, low-cost at 152 px); badges
// and placeholder text blended into Y with neutral chroma (font.go); raw
// and PNG frames converted to YCbCr after their RGB resize, and
// non-4:2:0 JPEGs' chroma resized to 4:2:0; the tile cache encoding from
// planes (EncodeYUV on a tile's sub-planes) and segment composition
// reading them; the purego backend given planes (image/jpeg decodes to
// YCbCr natively) or kept on RGB; and the pixel tests (goldens, badge
// OCR, direct tiles) regenerated or bounded.

import (
	"fmt"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// yuvNote is what the report says about integrating the prototype.
const yuvNote = "odd tile sizes (low-cost, 153 px) would need 152 or 154 px tiles in YUV, or chroma shared across tile seams"

// yuvBench builds the sheet of the 20 frames in planar YCbCr, the frames
// streamed through a ring like edgedBench's.
type yuvBench struct {
	frames [][]byte
	ring   *ringbuf.Ring
	start  time.Time
	n      int
	r      sheet.Recipe
	dec    *turbojpeg.Decoder
	enc    *turbojpeg.Encoder
	rs     sheet.PlaneResizer

	tw, th, bw, bh int
	frame          []byte        // the frame copied out of the ring
	tile           turbojpeg.YUV // a frame decoded at the tile's scale
	canvas         turbojpeg.YUV // the sheet: W x H luma, half-size chroma
	w, h           int           // the sheet's size
	out            []byte        // the sheet's JPEG
}

func newYUVBench(frames [][]byte) (*yuvBench, error) {
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 16 << 20, MaxAge: 3 * time.Second})
	if err != nil {
		return nil, err
	}
	y := &yuvBench{frames: frames, ring: ring, start: time.Unix(1776842526, 0), r: sheet.DefaultRecipe()}
	if y.dec, err = turbojpeg.NewDecoder(sheetLimits()); err != nil {
		return nil, err
	}
	if y.enc, err = turbojpeg.NewEncoder(); err != nil {
		return nil, err
	}
	hd, err := y.dec.Header(frames[0])
	if err != nil {
		return nil, err
	}
	y.tw = y.r.TileWidth
	y.th = sheet.TileHeight(y.tw, hd.Width, hd.Height)
	if y.tw%2 != 0 || y.th%2 != 0 {
		return nil, fmt.Errorf("yuv sheet: %dx%d tiles start at odd chroma positions: %s", y.tw, y.th, yuvNote)
	}
	y.w, y.h = y.r.Columns*y.tw, y.r.Rows*y.th
	y.canvas = planes(y.w, y.h)
	y.bw, y.bh = floorBadgeBox(y.th)
	for i := 0; i < 2; i++ { // warm up: buffers reach their steady size
		if err := y.sheet(); err != nil {
			return nil, err
		}
	}
	return y, nil
}

func (y *yuvBench) close() {
	y.dec.Close()
	y.enc.Close()
	y.ring.Close()
}

// planes allocates packed 4:2:0 planes for a w x h image.
func planes(w, h int) turbojpeg.YUV {
	var p turbojpeg.YUV
	for c := range 3 {
		pw, ph := turbojpeg.PlaneWidth(c, w, turbojpeg.Subsamp420), turbojpeg.PlaneHeight(c, h, turbojpeg.Subsamp420)
		p.Planes[c], p.Strides[c] = make([]byte, pw*ph), pw
	}
	return p
}

// floorBadgeBox is floor.c's badge box for th-high tiles.
func floorBadgeBox(th int) (w, h int) {
	pad := max((12*th+99)/100, 14)
	s := (pad + 7) / 8
	return (7*6-1)*s + 2*s, 10 * s
}

func (y *yuvBench) measure(iters int) (time.Duration, error) {
	t0 := cpuTime()
	for i := 0; i < iters; i++ {
		if err := y.sheet(); err != nil {
			return 0, err
		}
	}
	return (cpuTime() - t0) / time.Duration(iters), nil
}

func (y *yuvBench) sheet() error {
	for i, f := range y.frames {
		fr := capture.Frame{Stamp: y.start.Add(time.Duration(y.n) * y.r.Interval), Format: capture.FormatJPEG, Data: f}
		y.n++
		if err := y.ring.Put(&fr); err != nil {
			return err
		}
		_, data, ok := y.ring.Nearest(fr.Stamp, y.r.Interval/2, y.frame[:0])
		if !ok {
			return fmt.Errorf("yuv sheet: frame %d not in the ring", i)
		}
		y.frame = data
		if err := y.placeTile(i%y.r.Columns*y.tw, i/y.r.Columns*y.th, data); err != nil {
			return err
		}
	}
	out, err := y.enc.EncodeYUV(y.out, y.canvas, y.w, y.h, y.r.Quality, turbojpeg.Subsamp420)
	y.out = out
	return err
}

// placeTile decodes one frame and puts it, scaled, at (x, y) of the
// canvas (both even), with the badge box.
func (y *yuvBench) placeTile(x, yy int, data []byte) error {
	hd, err := y.dec.Header(data)
	if err != nil {
		return err
	}
	if hd.Subsamp != turbojpeg.Subsamp420 {
		return fmt.Errorf("yuv sheet: frame is %s, the prototype takes 4:2:0", hd.Subsamp)
	}
	num := turbojpeg.ScaleFor(hd.Width, hd.Height, y.tw, y.th)
	sw, sh := turbojpeg.Scaled(hd.Width, num), turbojpeg.Scaled(hd.Height, num)
	cell := y.cell(x, yy)
	if sw == y.tw && sh == y.th { // the scale lands on the tile: decode in place
		_, _, err = y.dec.DecodeYUVInto(data, hd, num, cell)
		y.badge(cell)
		return err
	}
	if len(y.tile.Planes[0]) < sw*sh {
		y.tile = planes(sw, sh)
	}
	for c := range 3 {
		y.tile.Strides[c] = turbojpeg.PlaneWidth(c, sw, turbojpeg.Subsamp420)
	}
	if _, _, err = y.dec.DecodeYUVInto(data, hd, num, y.tile); err != nil {
		return err
	}
	for c := range 3 {
		sub := turbojpeg.Subsamp420
		err := y.rs.Resize(cell.Planes[c], turbojpeg.PlaneWidth(c, y.tw, sub), turbojpeg.PlaneHeight(c, y.th, sub), cell.Strides[c],
			y.tile.Planes[c], turbojpeg.PlaneWidth(c, sw, sub), turbojpeg.PlaneHeight(c, sh, sub), y.tile.Strides[c])
		if err != nil {
			return err
		}
	}
	y.badge(cell)
	return nil
}

// cell is the canvas's planes from the tile at (x, y) on.
func (y *yuvBench) cell(x, yy int) turbojpeg.YUV {
	c := y.canvas
	c.Planes[0] = c.Planes[0][yy*c.Strides[0]+x:]
	for p := 1; p < 3; p++ {
		c.Planes[p] = c.Planes[p][yy/2*c.Strides[p]+x/2:]
	}
	return c
}

// badge blacks the tile's badge box: Y 0, chroma neutral.
func (y *yuvBench) badge(cell turbojpeg.YUV) {
	for r := 0; r < y.bh; r++ {
		clear(cell.Planes[0][r*cell.Strides[0] : r*cell.Strides[0]+y.bw])
	}
	for p := 1; p < 3; p++ {
		for r := 0; r < (y.bh+1)/2; r++ {
			row := cell.Planes[p][r*cell.Strides[p] : r*cell.Strides[p]+(y.bw+1)/2]
			for i := range row {
				row[i] = 128
			}
		}
	}
}

// printYUV prints issue 25's figures: the YUV prototype and the YUV
// floor against edged and the floor, and how their sheets' pixels differ.
func printYUV(edged time.Duration, med map[string]time.Duration, e *edgedBench, y *yuvBench, floor string, paths []string) error {
	if d, ok := med["edged-yuv"]; ok {
		fmt.Printf("%-34s %8.2f ms/sheet  edged-yuv/edged = %.2fx", "edged-yuv (planar YCbCr prototype)", ms(d), d.Seconds()/edged.Seconds())
		if f, ok := med["floor"]; ok {
			fmt.Printf("  edged-yuv/floor = %.2fx", d.Seconds()/f.Seconds())
		}
		fmt.Println()
	}
	if d, ok := med["floor-yuv"]; ok {
		fmt.Printf("%-34s %8.2f ms/sheet  floor-yuv/floor = %.2fx", "C floor-yuv (floor.c -yuv)", ms(d), d.Seconds()/med["floor"].Seconds())
		if ey, ok := med["edged-yuv"]; ok {
			fmt.Printf("  edged-yuv/floor-yuv = %.2fx", ey.Seconds()/d.Seconds())
		}
		fmt.Println()
	}
	e.keep = true
	err := e.sheet()
	e.keep = false
	if err != nil {
		return err
	}
	if err := y.sheet(); err != nil {
		return err
	}
	for _, masked := range []bool{false, true} {
		d, err := compareSheets(e.last, y.out, y.tw, y.th, masked)
		if err != nil {
			return fmt.Errorf("comparing edged and edged-yuv sheets: %w", err)
		}
		what := "whole sheet"
		if masked {
			what = "badges left out"
		}
		fmt.Printf("%-34s %s (%s)\n", "pixels edged vs edged-yuv", d, what)
	}
	if floor == "" {
		return nil
	}
	a, err := floorSheet(floor, "", y.tw, y.r.Quality, paths)
	if err != nil {
		return err
	}
	b, err := floorSheet(floor, "-yuv", y.tw, y.r.Quality, paths)
	if err != nil {
		return err
	}
	d, err := compareSheets(a, b, y.tw, y.th, false)
	if err != nil {
		return fmt.Errorf("comparing the floors' sheets: %w", err)
	}
	fmt.Printf("%-34s %s (whole sheet)\n", "pixels floor vs floor-yuv", d)
	return nil
}
