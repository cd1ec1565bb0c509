package sheet

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// The badge typeface is Go Mono Bold (BSD licensed, shipped in
// golang.org/x/image): a real outline font that OCR engines and VLMs read
// as easily as people do, with an unslashed zero. Its outlines are
// rasterized once per glyph height (and horizontal squeeze) into 8-bit
// alpha masks; drawing a badge only blends those masks, so it allocates
// nothing in steady state.

// badgeAlphabet is every byte a badge or placeholder draws; others are
// skipped. Rasterizing only these keeps a huge size cheap.
const badgeAlphabet = "0123456789.s- AEFMNOR"

// lineAlphabet sets a glyph set's line box (top and bottom of the ink),
// so every badge of one size has the same height whatever its digits.
const lineAlphabet = "0123456789.s-"

// fullWidth is the horizontal scale of undistorted glyphs, in 1/16ths.
const fullWidth = 16

// minWidth is the narrowest squeeze (a quarter of the width) used to fit
// a badge on a very narrow tile; beyond it the text is clipped.
const minWidth = 4

// glyphMask is one glyph's coverage at one size.
type glyphMask struct {
	x, y  int     // the mask's top-left relative to the pen on the baseline
	w, h  int     // mask size
	adv   int     // pen advance in pixels
	alpha []uint8 // w*h coverage, row-major, 255 = fully inked
}

// glyphSet is the badge alphabet rasterized at one size.
type glyphSet struct {
	height    int // ink height of '0' (rows at least half covered): the glyph height
	top, base int // line box over lineAlphabet: ink rows [top, base) relative to the baseline
	glyphs    [256]*glyphMask
}

// faceKey names a glyph set: the glyph height in pixels and the
// horizontal scale in 1/16ths.
type faceKey struct{ height, width int }

// maxFaces bounds the cache. A process sees a few tile heights (one per
// camera and recipe), so it is never reached in practice; past it the
// cache starts over rather than growing.
const maxFaces = 32

var faces struct {
	sync.Mutex
	font *sfnt.Font
	m    map[faceKey]*glyphSet
}

// glyphsFor returns the glyph set whose digits are at least height pixels
// tall (height >= 1), squeezed horizontally to width/16 (clamped to
// minWidth..fullWidth). Safe for concurrent use; a cached set costs a
// mutex and a map lookup, no allocation.
func glyphsFor(height, width int) *glyphSet {
	k := faceKey{max(height, 1), min(max(width, minWidth), fullWidth)}
	faces.Lock()
	defer faces.Unlock()
	if s := faces.m[k]; s != nil {
		return s
	}
	if faces.font == nil {
		f, err := opentype.Parse(gomonobold.TTF)
		if err != nil {
			// The font is compiled in: this is a broken build, not bad input.
			panic(fmt.Sprintf("sheet: parsing the embedded Go Mono Bold font: %v", err))
		}
		faces.font = f
	}
	if faces.m == nil || len(faces.m) >= maxFaces {
		faces.m = make(map[faceKey]*glyphSet)
	}
	s, err := rasterizeSet(faces.font, k)
	if err != nil {
		panic(fmt.Sprintf("sheet: rasterizing the embedded Go Mono Bold font: %v", err))
	}
	faces.m[k] = s
	return s
}

// rasterizeSet finds the smallest size (in quarter pixels per em) whose
// '0', squeezed to k.width, inks at least k.height rows, and rasterizes
// the alphabet at it. (Squeezing thins the curves' partly covered extreme
// rows, so a narrow set may need a slightly larger size.)
func rasterizeSet(f *sfnt.Font, k faceKey) (*glyphSet, error) {
	var buf sfnt.Buffer
	zero, err := f.GlyphIndex(&buf, '0')
	if err != nil {
		return nil, err
	}
	// A first guess from the outline's bounds at 64 ppem, then up in
	// quarter pixels until the rasterized '0' is tall enough: coverage at
	// the curves' extremes is partial, so the bounds alone can fall short.
	b, _, err := f.GlyphBounds(&buf, zero, fixed.I(64), font.HintingNone)
	if err != nil {
		return nil, err
	}
	ppem := fixed.Int26_6(float64(k.height) * 64 * 64 / float64(b.Max.Y-b.Min.Y) * 64)
	ppem &^= 15 // a quarter-pixel step
	r := vector.NewRasterizer(0, 0)
	for {
		g, err := rasterize(f, &buf, r, zero, ppem, k.width)
		if err != nil {
			return nil, err
		}
		if inkHeight(g) >= k.height {
			break
		}
		ppem += 16
	}
	s := &glyphSet{height: k.height}
	top, base := math.MaxInt, math.MinInt
	for i := 0; i < len(badgeAlphabet); i++ {
		c := badgeAlphabet[i]
		gi, err := f.GlyphIndex(&buf, rune(c))
		if err != nil {
			return nil, err
		}
		g, err := rasterize(f, &buf, r, gi, ppem, k.width)
		if err != nil {
			return nil, fmt.Errorf("glyph %q: %w", c, err)
		}
		s.glyphs[c] = g
		if c == '0' {
			s.height = inkHeight(g)
		}
		if g.h > 0 && containsByte(lineAlphabet, c) {
			top, base = min(top, g.y), max(base, g.y+g.h)
		}
	}
	s.top, s.base = top, base
	return s, nil
}

// rasterize renders glyph gi at ppem, x scaled by width/16, into a mask.
func rasterize(f *sfnt.Font, buf *sfnt.Buffer, r *vector.Rasterizer, gi sfnt.GlyphIndex, ppem fixed.Int26_6, width int) (*glyphMask, error) {
	adv, err := f.GlyphAdvance(buf, gi, ppem, font.HintingNone)
	if err != nil {
		return nil, err
	}
	xs := float32(width) / fullWidth
	g := &glyphMask{adv: int(math.Round(float64(adv) * float64(xs) / 64))}
	segs, err := f.LoadGlyph(buf, gi, ppem, nil)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return g, nil // a space
	}
	pt := func(p fixed.Point26_6) (float32, float32) { return float32(p.X) / 64 * xs, float32(p.Y) / 64 }
	// Control points bound the curves, so their extent bounds the ink.
	x0, y0 := float32(math.MaxFloat32), float32(math.MaxFloat32)
	x1, y1 := -x0, -y0
	for _, s := range segs {
		for _, p := range s.Args[:argCount(s.Op)] {
			x, y := pt(p)
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
	}
	g.x, g.y = int(math.Floor(float64(x0))), int(math.Floor(float64(y0)))
	g.w, g.h = int(math.Ceil(float64(x1)))-g.x, int(math.Ceil(float64(y1)))-g.y
	r.Reset(g.w, g.h)
	r.DrawOp = draw.Src
	ox, oy := float32(g.x), float32(g.y)
	for _, s := range segs {
		ax, ay := pt(s.Args[0])
		bx, by := pt(s.Args[1])
		cx, cy := pt(s.Args[2])
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			r.ClosePath() // a no-op unless the previous contour was left open
			r.MoveTo(ax-ox, ay-oy)
		case sfnt.SegmentOpLineTo:
			r.LineTo(ax-ox, ay-oy)
		case sfnt.SegmentOpQuadTo:
			r.QuadTo(ax-ox, ay-oy, bx-ox, by-oy)
		case sfnt.SegmentOpCubeTo:
			r.CubeTo(ax-ox, ay-oy, bx-ox, by-oy, cx-ox, cy-oy)
		}
	}
	r.ClosePath()
	dst := image.NewAlpha(image.Rect(0, 0, g.w, g.h))
	r.Draw(dst, dst.Bounds(), image.Opaque, image.Point{})
	g.alpha = dst.Pix
	return g, nil
}

func argCount(op sfnt.SegmentOp) int {
	switch op {
	case sfnt.SegmentOpQuadTo:
		return 2
	case sfnt.SegmentOpCubeTo:
		return 3
	}
	return 1
}

// inkHeight counts the mask rows with a pixel at least half covered.
func inkHeight(g *glyphMask) int {
	n := 0
	for y := 0; y < g.h; y++ {
		for _, a := range g.alpha[y*g.w : (y+1)*g.w] {
			if a >= 128 {
				n++
				break
			}
		}
	}
	return n
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
