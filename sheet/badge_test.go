package sheet

import (
	"sync"
	"testing"
)

func TestBadgeHeight(t *testing.T) {
	for _, tc := range []struct{ tileH, want int }{
		{0, 14}, {60, 14}, {116, 14}, {117, 15}, {126, 16}, {168, 21}, {224, 27}, {480, 58}, {1000, 120},
	} {
		if got := BadgeHeight(tc.tileH); got != tc.want {
			t.Errorf("BadgeHeight(%d) = %d, want %d", tc.tileH, got, tc.want)
		}
	}
}

// TestGlyphMasks: each glyph height gets masks whose '0' inks at least
// that many rows (and not many more), every badge character has a glyph,
// the face is monospaced, bold stems reach full coverage, and a squeezed
// set is narrower but as tall.
func TestGlyphMasks(t *testing.T) {
	for _, h := range []int{1, 14, 15, 16, 17, 21, 27, 58, 120} {
		s := glyphsFor(h, fullWidth)
		zero := s.glyphs['0']
		if ink := inkHeight(zero); ink < h || ink > h+2 || s.height != ink {
			t.Errorf("height %d: '0' inks %d rows (set says %d)", h, ink, s.height)
		}
		if s.base-s.top < s.height || s.top >= 0 || s.base > 1+h/8 {
			t.Errorf("height %d: line box [%d, %d) around a %d-px digit", h, s.top, s.base, s.height)
		}
		for i := 0; i < len(badgeAlphabet); i++ {
			c := badgeAlphabet[i]
			g := s.glyphs[c]
			if g == nil {
				t.Fatalf("height %d: no glyph for %q", h, c)
			}
			if g.adv != zero.adv || g.adv <= 0 {
				t.Errorf("height %d: %q advances %d, '0' %d (want one monospace advance)", h, c, g.adv, zero.adv)
			}
			if len(g.alpha) != g.w*g.h {
				t.Errorf("height %d: %q mask %dx%d holds %d bytes", h, c, g.w, g.h, len(g.alpha))
			}
			if c != ' ' && h >= 14 && maxAlpha(g) != 255 {
				t.Errorf("height %d: %q never fully inked (max coverage %d)", h, c, maxAlpha(g))
			}
		}
		if s.glyphs[' '].w != 0 || s.glyphs['x'] != nil {
			t.Errorf("height %d: space has ink or an unknown byte has a glyph", h)
		}
		half := glyphsFor(h, fullWidth/2)
		if h >= 14 && (half.height < h || half.glyphs['0'].adv > (zero.adv+1)/2 || half.glyphs['0'].w >= zero.w) {
			t.Errorf("height %d: half-width set: height %d advance %d width %d, full %d %d %d", h,
				half.height, half.glyphs['0'].adv, half.glyphs['0'].w, s.height, zero.adv, zero.w)
		}
	}
}

func maxAlpha(g *glyphMask) uint8 {
	var m uint8
	for _, a := range g.alpha {
		m = max(m, a)
	}
	return m
}

// TestGlyphCache: a size is rasterized once and shared, lookups and
// badges allocate nothing once warm (whatever the JPEG backend), and the
// cache stays bounded however many sizes a process asks for.
func TestGlyphCache(t *testing.T) {
	first := glyphsFor(16, fullWidth)
	if glyphsFor(16, fullWidth) != first {
		t.Fatal("the same size was rasterized twice")
	}
	if glyphsFor(16, 99) != glyphsFor(16, fullWidth) || glyphsFor(16, 0) != glyphsFor(16, minWidth) {
		t.Fatal("out-of-range widths are not clamped")
	}
	m := rgbImage{pix: make([]byte, 224*126*3), w: 224, h: 126, stride: 224 * 3}
	portrait := rgbImage{pix: make([]byte, 90*160*3), w: 90, h: 160, stride: 90 * 3}
	var b [24]byte
	text := formatSeconds(&b, 1250)
	draw := func() {
		m.drawBadge(text)
		portrait.drawBadge(text)
		placeholder(m)
		placeholder(portrait)
	}
	draw()
	if a := testing.AllocsPerRun(20, draw); a != 0 {
		t.Errorf("%v allocations per badge in steady state", a)
	}
	for h := 14; h < 20; h++ {
		for w := minWidth; w <= fullWidth; w++ {
			glyphsFor(h, w)
		}
	}
	faces.Lock()
	n := len(faces.m)
	faces.Unlock()
	if n > maxFaces {
		t.Errorf("cache holds %d sets, bound %d", n, maxFaces)
	}
}

// TestBadgeConcurrent: builders of different cameras draw badges in
// parallel (run with -race).
func TestBadgeConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(h int) {
			defer wg.Done()
			m := rgbImage{pix: make([]byte, 224*h*3), w: 224, h: h, stride: 224 * 3}
			var b [24]byte
			for k := int64(0); k < 50; k++ {
				m.drawBadge(formatSeconds(&b, k*50))
			}
		}(300 + i%2)
	}
	wg.Wait()
}

// TestTextTinyTiles: badges and placeholders on tiles far too small for
// them are clipped, never a panic.
func TestTextTinyTiles(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 2}, {3, 40}, {40, 3}, {16, 9}} {
		m := rgbImage{pix: make([]byte, sz[0]*sz[1]*3), w: sz[0], h: sz[1], stride: sz[0] * 3}
		placeholder(m)
		var b [24]byte
		m.drawBadge(formatSeconds(&b, 123456789))
	}
}

// TestPlaceholderText: "NO FRAME" is drawn centred in light grey at the
// badge's glyph height.
func TestPlaceholderText(t *testing.T) {
	const w, h = 224, 126
	m := rgbImage{pix: make([]byte, w*h*3), w: w, h: h, stride: w * 3}
	placeholder(m)
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if m.pix[y*m.stride+3*x] >= 105 { // half-way between text (170) and ground (40)
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		t.Fatal("no placeholder text")
	}
	if ink := y1 - y0 + 1; ink < BadgeHeight(h) || ink > BadgeHeight(h)+3 {
		t.Errorf("text %d px tall, want about %d", ink, BadgeHeight(h))
	}
	if cx, cy := (x0+x1)/2, (y0+y1)/2; cx < w/2-2 || cx > w/2+2 || cy < h/2-2 || cy > h/2+2 {
		t.Errorf("text centred at (%d, %d), tile centre (%d, %d)", cx, cy, w/2, h/2)
	}
}

// BenchmarkBadge: one default-recipe badge (224x126 tile) from cached masks.
func BenchmarkBadge(b *testing.B) {
	m := rgbImage{pix: make([]byte, 224*126*3), w: 224, h: 126, stride: 224 * 3}
	var tb [24]byte
	text := formatSeconds(&tb, 1250)
	m.drawBadge(text)
	b.ReportAllocs()
	b.SetBytes(int64(len(m.pix)))
	for b.Loop() {
		m.drawBadge(text)
	}
}
