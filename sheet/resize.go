package sheet

// Area (box) resampling of packed RGB, or of one 8-bit plane (resize_plane.go): each destination pixel is the
// average of the source area it covers, with fractional edge weights, so
// every source pixel contributes and small objects survive downscaling.
// Weights are 14-bit fixed point and summed exactly to 1<<14 per pixel.

import "slices"

const weightBits = 14

// axis holds the taps of one dimension: destination i reads n[i] source
// samples starting at first[i], with weights w[off[i]:off[i]+n[i]].
type axis struct {
	src, dst int
	ch       int // channels per pixel the t3 offsets count in
	first    []int32
	n        []int32
	off      []int32
	w        []int32
	// t3 holds the same taps padded to exactly 3 per destination sample
	// (zero weights added; the window moved left at the right edge), for
	// a branchless loop; nil when some sample reads more than 3 or src < 3.
	t3 []tap3
}

// tap3 is one destination sample's 3-tap window: byte offset of the
// first source sample (ch x its index), and the weights.
type tap3 struct{ off, w0, w1, w2 int32 }

// build fills a for src -> dst samples of packed RGB, reusing its slices.
func (a *axis) build(src, dst int) { a.buildCh(src, dst, rgbChannels) }

// buildCh is build for ch channels per pixel (only t3's offsets differ).
func (a *axis) buildCh(src, dst, ch int) {
	if a.src == src && a.dst == dst && a.ch == ch {
		return
	}
	a.src, a.dst, a.ch = src, dst, ch
	a.first, a.n, a.off, a.w = a.first[:0], a.n[:0], a.off[:0], a.w[:0]
	// Work in units of 1/dst source pixels: destination i covers
	// [i*src, (i+1)*src) in those units.
	for i := 0; i < dst; i++ {
		lo, hi := i*src, (i+1)*src
		s0, s1 := lo/dst, (hi+dst-1)/dst
		a.first = append(a.first, int32(s0))
		a.n = append(a.n, int32(s1-s0))
		a.off = append(a.off, int32(len(a.w)))
		total, start := 0, len(a.w)
		for s := s0; s < s1; s++ {
			cover := min(hi, (s+1)*dst) - max(lo, s*dst)
			wt := cover * (1 << weightBits) / src
			a.w = append(a.w, int32(wt))
			total += wt
		}
		// Give the rounding remainder to the largest tap.
		big := start
		for j := start; j < len(a.w); j++ {
			if a.w[j] > a.w[big] {
				big = j
			}
		}
		a.w[big] += int32(1<<weightBits - total)
	}
	a.buildTap3()
}

// buildTap3 fills a.t3 from the taps when every sample reads at most 3
// source samples. Zero-weight taps leave the sums, hence the pixels,
// unchanged.
func (a *axis) buildTap3() {
	a.t3 = a.t3[:0]
	if a.src < 3 {
		a.t3 = nil
		return
	}
	for i := range a.first {
		n := int(a.n[i])
		if n > 3 {
			a.t3 = nil
			return
		}
		f := int(a.first[i])
		s := min(f, a.src-3)
		var w [3]int32
		copy(w[f-s:], a.w[a.off[i]:int(a.off[i])+n])
		a.t3 = append(a.t3, tap3{off: int32(a.ch * s), w0: w[0], w1: w[1], w2: w[2]})
	}
}

// resizer scales packed RGB images (or single planes); it keeps its tables and scratch
// between calls (no allocation when sizes repeat). Not safe for
// concurrent use.
type resizer struct {
	x, y axis
	tmp  []uint16 // horizontal pass: a window of rows of dstW*3, 8.8 fixed point
	acc  []uint32 // vertical pass: one output row
}

// resize scales src (sw x sh, rows sstride bytes apart) into dst (dw x dh,
// rows dstride bytes apart).
//
// The horizontal pass runs just ahead of the vertical one, into a window
// of as many rows as one output row reads: the window stays in the L1
// cache, where a whole horizontally scaled frame would not.
func (r *resizer) resize(dst []byte, dw, dh, dstride int, src []byte, sw, sh, sstride int) {
	r.scale(dst, dw, dh, dstride, src, sw, sh, sstride, rgbChannels)
}

// Channels per pixel of what scale reads and writes: packed RGB, or one
// plane (Y, Cb or Cr of a planar YUV image).
const (
	rgbChannels   = 3
	planeChannels = 1
)

// scale is resize for ch channels per pixel (rgbChannels or
// planeChannels): the vertical pass works on rows of dw x ch samples
// whatever ch is; only the horizontal pass differs.
func (r *resizer) scale(dst []byte, dw, dh, dstride int, src []byte, sw, sh, sstride, ch int) {
	if dw <= 0 || dh <= 0 || sw <= 0 || sh <= 0 {
		return
	}
	r.x.buildCh(sw, dw, ch)
	r.y.build(sh, dh) // vertical taps index rows: ch does not matter
	rowLen := dw * ch
	win := int(slices.Max(r.y.n))
	if n := rowLen * win; cap(r.tmp) < n {
		r.tmp = make([]uint16, n)
	}
	if cap(r.acc) < rowLen {
		r.acc = make([]uint32, rowLen)
	}
	tmp := r.tmp[:rowLen*win]
	row := func(y int) []uint16 { s := y % win; return tmp[s*rowLen : (s+1)*rowLen] }
	next := 0 // next source row to scale horizontally
	first, cnt, off, wts := r.y.first, r.y.n, r.y.off, r.y.w
	for j := 0; j < dh; j++ {
		f, o := int(first[j]), int(off[j])
		ws := wts[o : o+int(cnt[j])]
		for ; next < f+len(ws); next++ {
			srow := src[next*sstride : next*sstride+sw*ch]
			if ch == planeChannels {
				horizontalPlane(row(next), srow, &r.x)
			} else {
				horizontal(row(next), srow, &r.x)
			}
		}
		out := dst[j*dstride : j*dstride+rowLen]
		switch len(ws) { // fused loops for the usual 1-3 taps
		case 1:
			vertical1(out, row(f))
		case 2:
			vertical2(out, row(f), row(f+1), uint32(ws[0]), uint32(ws[1]))
		case 3:
			vertical3(out, row(f), row(f+1), row(f+2), uint32(ws[0]), uint32(ws[1]), uint32(ws[2]))
		default:
			acc := r.acc[:rowLen]
			clear(acc)
			for k, wt := range ws {
				src := row(f + k)[:len(acc)]
				for c := range acc {
					acc[c] += uint32(wt) * uint32(src[c])
				}
			}
			out = out[:len(acc)]
			for c, s := range acc {
				out[c] = round8(s)
			}
		}
	}
}

const vshift = weightBits + 8

func round8(s uint32) byte { return byte(min((s+1<<(vshift-1))>>vshift, 255)) }

func vertical1(out []byte, a []uint16) {
	a = a[:len(out)]
	for c := range out {
		out[c] = byte(min((uint32(a[c])+128)>>8, 255))
	}
}

func vertical2(out []byte, a, b []uint16, wa, wb uint32) {
	a, b = a[:len(out)], b[:len(out)]
	for c := range out {
		out[c] = round8(wa*uint32(a[c]) + wb*uint32(b[c]))
	}
}

func vertical3(out []byte, a, b, d []uint16, wa, wb, wd uint32) {
	a, b, d = a[:len(out)], b[:len(out)], d[:len(out)]
	for c := range out {
		out[c] = round8(wa*uint32(a[c]) + wb*uint32(b[c]) + wd*uint32(d[c]))
	}
}

const (
	sh6   = weightBits - 8 // horizontal pass: weights x 8-bit samples -> 8.8
	round = 1 << (sh6 - 1)
)

// horizontal3 is horizontal with every sample's window padded to 3 taps:
// no branch per sample, which is most of the resize's time.
func horizontal3(out []uint16, row []byte, taps []tap3) {
	out = out[:3*len(taps)]
	for i, t := range taps {
		p := row[t.off : t.off+9 : t.off+9]
		o := out[3*i : 3*i+3 : 3*i+3]
		o[0] = uint16((t.w0*int32(p[0]) + t.w1*int32(p[3]) + t.w2*int32(p[6]) + round) >> sh6)
		o[1] = uint16((t.w0*int32(p[1]) + t.w1*int32(p[4]) + t.w2*int32(p[7]) + round) >> sh6)
		o[2] = uint16((t.w0*int32(p[2]) + t.w1*int32(p[5]) + t.w2*int32(p[8]) + round) >> sh6)
	}
}

// horizontal resamples one row of packed RGB into 8.8 fixed point.
func horizontal(out []uint16, row []byte, a *axis) {
	if a.t3 != nil {
		horizontal3(out, row, a.t3)
		return
	}
	first, cnt, off, wts := a.first, a.n, a.off, a.w
	for i := 0; i < len(first) && 3*i+2 < len(out); i++ {
		f, o, n := int(first[i])*3, int(off[i]), int(cnt[i])
		ws := wts[o : o+n]
		px := row[f : f+3*n]
		var sr, sg, sb int32
		switch n { // unrolled for the usual 2-3 taps
		case 2:
			p := px[:6:6]
			w0, w1 := ws[0], ws[1]
			sr = w0*int32(p[0]) + w1*int32(p[3])
			sg = w0*int32(p[1]) + w1*int32(p[4])
			sb = w0*int32(p[2]) + w1*int32(p[5])
		case 3:
			p := px[:9:9]
			w0, w1, w2 := ws[0], ws[1], ws[2]
			sr = w0*int32(p[0]) + w1*int32(p[3]) + w2*int32(p[6])
			sg = w0*int32(p[1]) + w1*int32(p[4]) + w2*int32(p[7])
			sb = w0*int32(p[2]) + w1*int32(p[5]) + w2*int32(p[8])
		default:
			for j, wt := range ws {
				p := px[3*j : 3*j+3 : 3*j+3]
				sr += wt * int32(p[0])
				sg += wt * int32(p[1])
				sb += wt * int32(p[2])
			}
		}
		o3 := out[3*i : 3*i+3 : 3*i+3]
		o3[0] = uint16((sr + round) >> sh6)
		o3[1] = uint16((sg + round) >> sh6)
		o3[2] = uint16((sb + round) >> sh6)
	}
}
