package sheet

// The area filter on one 8-bit plane: the same taps, weights and
// rounding as the packed RGB path (resize.go), one sample per pixel.
// Issue 25's prototype uses it to scale the Y, Cb and Cr planes of a
// tile decoded to planar YUV (bench/sheet's edged-yuv); the Builder does
// not (yet): it composes packed RGB.

import (
	"errors"
	"fmt"
)

// errPlaneArgs: a plane resize whose sizes or buffers do not fit.
var errPlaneArgs = errors.New("sheet: plane resize: invalid argument")

// PlaneResizer area-filters single 8-bit planes. It keeps the tables
// and scratch of two sizes between calls (luma and chroma of 4:2:0
// alternate: no table rebuilt, no allocation when sizes repeat). Not
// safe for concurrent use.
type PlaneResizer struct {
	rs   [2]resizer
	next int // the one to rebuild when neither has the sizes
}

// pick returns the resizer holding the tables for sw x sh -> dw x dh, or
// the least recently rebuilt one.
func (p *PlaneResizer) pick(sw, sh, dw, dh int) *resizer {
	for i := range p.rs {
		r := &p.rs[i]
		if r.x.src == sw && r.x.dst == dw && r.x.ch == planeChannels && r.y.src == sh && r.y.dst == dh {
			return r
		}
	}
	r := &p.rs[p.next]
	p.next = 1 - p.next
	return r
}

// Resize scales src (sw x sh, rows sstride bytes apart) into dst (dw x dh,
// rows dstride bytes apart). Sizes that do not fit the buffers are an
// error, checked before anything is written.
func (p *PlaneResizer) Resize(dst []byte, dw, dh, dstride int, src []byte, sw, sh, sstride int) error {
	if err := checkPlane("destination", len(dst), dw, dh, dstride); err != nil {
		return err
	}
	if err := checkPlane("source", len(src), sw, sh, sstride); err != nil {
		return err
	}
	p.pick(sw, sh, dw, dh).scale(dst, dw, dh, dstride, src, sw, sh, sstride, planeChannels)
	return nil
}

// checkPlane: a w x h plane with rows stride apart fits in n bytes.
func checkPlane(what string, n, w, h, stride int) error {
	if w <= 0 || h <= 0 || stride < w || n < stride*(h-1)+w {
		return fmt.Errorf("%w: %s %dx%d, stride %d, in %d bytes", errPlaneArgs, what, w, h, stride, n)
	}
	return nil
}

// horizontalPlane resamples one row of a plane into 8.8 fixed point.
func horizontalPlane(out []uint16, row []byte, a *axis) {
	if a.t3 != nil {
		out = out[:len(a.t3)]
		for i, t := range a.t3 {
			p := row[t.off : t.off+3 : t.off+3]
			out[i] = uint16((t.w0*int32(p[0]) + t.w1*int32(p[1]) + t.w2*int32(p[2]) + round) >> sh6)
		}
		return
	}
	first, cnt, off, wts := a.first, a.n, a.off, a.w
	for i := 0; i < len(first) && i < len(out); i++ {
		f, o, n := int(first[i]), int(off[i]), int(cnt[i])
		var s int32
		for j, wt := range wts[o : o+n] {
			s += wt * int32(row[f+j])
		}
		out[i] = uint16((s + round) >> sh6)
	}
}
