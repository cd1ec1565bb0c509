package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"unicode"
)

// color is a label's bar color and the text color readable on it.
type color struct{ bg, fg string }

func (c color) css() template.CSS {
	return template.CSS("background:" + c.bg + ";color:" + c.fg)
}

// base is a qualitative palette whose neighbours are easy to tell apart.
var base = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2",
	"#edc948", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8"}

// palette gives each label a stable color in order of first use; labels
// equal up to case and punctuation share one.
type palette struct {
	byKey map[string]color
	order []string
}

func newPalette() *palette { return &palette{byKey: map[string]color{}} }

func (p *palette) of(label string) color {
	k := key(label)
	if c, ok := p.byKey[k]; ok {
		return c
	}
	n := len(p.order)
	var bg string
	if n < len(base) {
		bg = base[n]
	} else {
		// golden-angle hues beyond the palette, never two alike in a row
		bg = hsl(math.Mod(float64(n)*137.508, 360), 0.55, 0.55)
	}
	c := color{bg: bg, fg: textOn(bg)}
	p.byKey[k] = c
	p.order = append(p.order, label)
	return c
}

func key(label string) string {
	f := strings.FieldsFunc(strings.ToLower(label), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

func hsl(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	to := func(v float64) int { return int(math.Round((v + m) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to(r), to(g), to(b))
}

// textOn picks near-black or white text by the background's luminance.
func textOn(bg string) string {
	var r, g, b int
	if _, err := fmt.Sscanf(bg, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return "#111111"
	}
	lin := func(v int) float64 {
		c := float64(v) / 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	lum := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	if lum > 0.22 {
		return "#111111"
	}
	return "#ffffff"
}
