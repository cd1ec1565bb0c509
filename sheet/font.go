package sheet

// A 5 x 8 bitmap font of our own, scaled up by an integer factor: enough
// glyphs for timestamps ("012.50s") and the placeholder's "NO FRAME".
// Each glyph is 8 rows; bit 4 of a row is the leftmost pixel.

const (
	glyphW   = 5
	glyphH   = 8
	advanceW = glyphW + 1 // one column of spacing
)

var glyphs = map[byte][glyphH]uint8{
	'0': {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b10001, 0b01110},
	'1': {0b00100, 0b01100, 0b10100, 0b00100, 0b00100, 0b00100, 0b00100, 0b11111},
	'2': {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111},
	'3': {0b11110, 0b00001, 0b00001, 0b01110, 0b00001, 0b00001, 0b00001, 0b11110},
	'4': {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010, 0b00010},
	'5': {0b11111, 0b10000, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110},
	'6': {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b10001, 0b01110},
	'7': {0b11111, 0b00001, 0b00010, 0b00010, 0b00100, 0b00100, 0b01000, 0b01000},
	'8': {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110},
	'9': {0b01110, 0b10001, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100},
	'.': {0, 0, 0, 0, 0, 0, 0b01100, 0b01100},
	's': {0, 0, 0b01111, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110},
	'-': {0, 0, 0, 0b11111, 0, 0, 0, 0},
	' ': {},
	'A': {0b01110, 0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001},
	'E': {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000, 0b11111},
	'F': {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000, 0b10000},
	'M': {0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001, 0b10001},
	'N': {0b10001, 0b11001, 0b11001, 0b10101, 0b10101, 0b10011, 0b10011, 0b10001},
	'O': {0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110},
	'R': {0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001, 0b10001},
}

// glyphTable is glyphs indexed by byte, so drawing does no map lookups.
var glyphTable = func() (t [256]*[glyphH]uint8) {
	for c, g := range glyphs {
		g := g
		t[c] = &g
	}
	return t
}()

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

// textWidth is the pixel width of n glyphs at scale s (no trailing space).
func textWidth(n, s int) int {
	if n == 0 {
		return 0
	}
	return (n*advanceW - 1) * s
}

// drawText draws text with its top-left at (x, y), each font pixel sx
// wide and sy high, clipped to m.
func (m rgbImage) drawText(x, y, sx, sy int, text []byte, c [3]byte) {
	for i, ch := range text {
		g := glyphTable[ch]
		if g == nil {
			continue
		}
		gx := x + i*advanceW*sx
		for row := 0; row < glyphH; row++ {
			bits := g[row]
			for col := 0; col < glyphW; col++ {
				if bits&(1<<(glyphW-1-col)) != 0 {
					m.fill(gx+col*sx, y+row*sy, gx+(col+1)*sx, y+(row+1)*sy, c)
				}
			}
		}
	}
}

// BadgeScale returns the font scale for a tile of height h: glyph height
// (8 x scale) at least 12% of the tile height and never under 14 px.
func BadgeScale(h int) int {
	minPx := max(14, (12*h+99)/100)
	return (minPx + glyphH - 1) / glyphH
}

// drawBadge draws text white on a black box at the top-left of m and
// returns the box size. The glyph height always follows BadgeScale; on a
// tile too narrow for square glyphs (portrait cameras) they are narrowed
// to fit rather than clipped.
func (m rgbImage) drawBadge(text []byte) (bw, bh int) {
	sy := BadgeScale(m.h)
	sx := sy
	for sx > 1 && textWidth(len(text), sx)+2*sx > m.w {
		sx--
	}
	bw, bh = textWidth(len(text), sx)+2*sx, glyphH*sy+2*sy
	m.fill(0, 0, bw, bh, [3]byte{0, 0, 0})
	m.drawText(sx, sy, sx, sy, text, [3]byte{255, 255, 255})
	return bw, bh
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
