package sheet

// Badge and placeholder text, drawn with the glyph masks of typeface.go.

// rgbImage is a view of packed RGB pixels.
type rgbImage struct {
	pix    []byte
	w, h   int
	stride int
}

func (m rgbImage) fill(x0, y0, x1, y1 int, c [3]byte) {
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, m.w), min(y1, m.h)
	for y := y0; y < y1; y++ {
		row := m.pix[y*m.stride:]
		for x := x0; x < x1; x++ {
			row[3*x], row[3*x+1], row[3*x+2] = c[0], c[1], c[2]
		}
	}
}

// BadgeHeight returns the glyph height in pixels (the ink height of a
// digit) of the badge on a tile of height h: at least 12% of the tile
// height and never under 14 px, so the digits stay legible after a VLM
// downsamples the sheet (DESIGN.md, "Contact sheets").
func BadgeHeight(h int) int {
	return max(14, (12*h+99)/100)
}

// badgePad is the margin of the badge box around the text: the box is
// what keeps the digits high-contrast over any picture.
func badgePad(height int) int {
	return max(2, (height+2)/5)
}

// textExtent is the horizontal ink extent [x0, x1) of text set with the
// pen starting at 0.
func (s *glyphSet) textExtent(text []byte) (x0, x1 int) {
	pen, first := 0, true
	for _, c := range text {
		g := s.glyphs[c]
		if g == nil {
			continue
		}
		if g.w > 0 {
			if first {
				x0, x1, first = pen+g.x, pen+g.x+g.w, false
			}
			x0, x1 = min(x0, pen+g.x), max(x1, pen+g.x+g.w)
		}
		pen += g.adv
	}
	return x0, x1
}

// fitGlyphs returns the glyph set of the given height, squeezed
// horizontally only as far as needed for text plus 2*pad to fit in w
// (portrait cameras), and the text's ink extent in it.
func fitGlyphs(text []byte, height, pad, w int) (s *glyphSet, x0, x1 int) {
	s = glyphsFor(height, fullWidth)
	x0, x1 = s.textExtent(text)
	if x1-x0+2*pad <= w {
		return s, x0, x1
	}
	// Start from the proportional squeeze and narrow further only if
	// rounding left it too wide, so a portrait camera uses one or two
	// sets, not every width in between.
	width := min(fullWidth-1, fullWidth*max(w-2*pad, 0)/max(x1-x0, 1))
	for {
		s = glyphsFor(height, width)
		x0, x1 = s.textExtent(text)
		if x1-x0+2*pad <= w || width <= minWidth {
			return s, x0, x1
		}
		width--
	}
}

// drawBadge draws text white on a black box at the top-left of m and
// returns the box size. The glyph height always follows BadgeHeight; on a
// tile too narrow for the text (portrait cameras) the glyphs are narrowed
// to fit rather than clipped.
func (m rgbImage) drawBadge(text []byte) (bw, bh int) {
	height := BadgeHeight(m.h)
	pad := badgePad(height)
	s, x0, x1 := fitGlyphs(text, height, pad, m.w)
	bw, bh = x1-x0+2*pad, s.base-s.top+2*pad
	m.fill(0, 0, bw, bh, [3]byte{0, 0, 0})
	m.drawText(s, pad-x0, pad-s.top, text, [3]byte{255, 255, 255})
	return bw, bh
}

// drawCentered draws text in colour c centred on m at the badge's glyph
// height (the placeholder's "NO FRAME").
func (m rgbImage) drawCentered(text []byte, c [3]byte) {
	height := BadgeHeight(m.h)
	s, x0, x1 := fitGlyphs(text, height, 2, m.w)
	x := (m.w-(x1-x0))/2 - x0
	y := (m.h-(s.base-s.top))/2 - s.top
	m.drawText(s, x, y, text, c)
}

// drawText blends text in colour c onto m with the pen starting at x on
// baseline y, clipped to m.
func (m rgbImage) drawText(s *glyphSet, x, y int, text []byte, c [3]byte) {
	for _, ch := range text {
		g := s.glyphs[ch]
		if g == nil {
			continue
		}
		m.blendMask(g, x+g.x, y+g.y, c)
		x += g.adv
	}
}

// blendMask draws colour c through g's coverage with its top-left at
// (x0, y0), clipped to m.
func (m rgbImage) blendMask(g *glyphMask, x0, y0 int, c [3]byte) {
	for gy := max(0, -y0); gy < g.h && y0+gy < m.h; gy++ {
		row := m.pix[(y0+gy)*m.stride:]
		cov := g.alpha[gy*g.w : (gy+1)*g.w]
		for gx := max(0, -x0); gx < g.w && x0+gx < m.w; gx++ {
			a := int(cov[gx])
			if a == 0 {
				continue
			}
			p := row[3*(x0+gx) : 3*(x0+gx)+3]
			if a == 255 {
				p[0], p[1], p[2] = c[0], c[1], c[2]
				continue
			}
			for i := range p {
				p[i] = byte((int(p[i])*(255-a) + int(c[i])*a + 127) / 255)
			}
		}
	}
}

// formatSeconds writes d seconds (>= 0) as "012.50s" into buf without
// allocating: at least three integer digits, two decimals, rounded.
func formatSeconds(buf *[24]byte, centis int64) []byte {
	if centis < 0 {
		centis = 0
	}
	i := len(buf)
	i--
	buf[i] = 's'
	frac := centis % 100
	i--
	buf[i] = byte('0' + frac%10)
	i--
	buf[i] = byte('0' + frac/10)
	i--
	buf[i] = '.'
	whole := centis / 100
	for digits := 0; digits < 3 || whole > 0; digits++ {
		i--
		buf[i] = byte('0' + whole%10)
		whole /= 10
	}
	return buf[i:]
}
