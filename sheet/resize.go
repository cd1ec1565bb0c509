package sheet

// Area (box) resampling of packed RGB: each destination pixel is the
// average of the source area it covers, with fractional edge weights, so
// every source pixel contributes and small objects survive downscaling.
// Weights are 14-bit fixed point and summed exactly to 1<<14 per pixel.

const weightBits = 14

// axis holds the taps of one dimension: destination i reads n[i] source
// samples starting at first[i], with weights w[off[i]:off[i]+n[i]].
type axis struct {
	src, dst int
	first    []int32
	n        []int32
	off      []int32
	w        []int32
}

// build fills a for src -> dst samples, reusing its slices.
func (a *axis) build(src, dst int) {
	if a.src == src && a.dst == dst {
		return
	}
	a.src, a.dst = src, dst
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
}

// resizer scales packed RGB images; it keeps its tables and scratch
// between calls (no allocation when sizes repeat). Not safe for
// concurrent use.
type resizer struct {
	x, y axis
	tmp  []uint16 // horizontal pass: srcH rows of dstW*3, 8.8 fixed point
}

// resize scales src (sw x sh, rows sstride bytes apart) into dst (dw x dh,
// rows dstride bytes apart).
func (r *resizer) resize(dst []byte, dw, dh, dstride int, src []byte, sw, sh, sstride int) {
	r.x.build(sw, dw)
	r.y.build(sh, dh)
	n := dw * 3 * sh
	if cap(r.tmp) < n {
		r.tmp = make([]uint16, n)
	}
	tmp := r.tmp[:n]
	// Horizontal: 8-bit x 14-bit weights, kept as 8.8.
	for y := 0; y < sh; y++ {
		row := src[y*sstride : y*sstride+sw*3]
		out := tmp[y*dw*3 : (y+1)*dw*3]
		for i := 0; i < dw; i++ {
			f, cnt, o := int(r.x.first[i]), int(r.x.n[i]), int(r.x.off[i])
			ws := r.x.w[o : o+cnt]
			px := row[f*3 : (f+cnt)*3]
			var sr, sg, sb int32
			for j, wt := range ws {
				p := px[j*3 : j*3+3]
				sr += wt * int32(p[0])
				sg += wt * int32(p[1])
				sb += wt * int32(p[2])
			}
			const sh6 = weightBits - 8
			out[3*i] = uint16((sr + 1<<(sh6-1)) >> sh6)
			out[3*i+1] = uint16((sg + 1<<(sh6-1)) >> sh6)
			out[3*i+2] = uint16((sb + 1<<(sh6-1)) >> sh6)
		}
	}
	// Vertical: 8.8 x 14-bit weights, back to 8 bits.
	const shift = weightBits + 8
	rowLen := dw * 3
	for j := 0; j < dh; j++ {
		f, cnt, o := int(r.y.first[j]), int(r.y.n[j]), int(r.y.off[j])
		ws := r.y.w[o : o+cnt]
		out := dst[j*dstride : j*dstride+rowLen]
		for c := 0; c < rowLen; c++ {
			var s uint32
			for k, wt := range ws {
				s += uint32(wt) * uint32(tmp[(f+k)*rowLen+c])
			}
			v := (s + 1<<(shift-1)) >> shift
			if v > 255 {
				v = 255
			}
			out[c] = byte(v)
		}
	}
}
