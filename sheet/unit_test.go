package sheet

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

func TestRecipeValidate(t *testing.T) {
	if err := DefaultRecipe().Validate(); err != nil {
		t.Fatalf("default recipe invalid: %v", err)
	}
	d := DefaultRecipe()
	if d.Interval != 500*time.Millisecond || d.TileWidth != 224 || d.Columns != 5 || d.Rows != 4 || d.Quality != 84 {
		t.Fatalf("defaults differ from DESIGN.md: %+v", d)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Recipe)
		want string
	}{
		{"tile width", func(r *Recipe) { r.TileWidth = 0 }, "sheet.tile_width: must be > 0"},
		{"huge tile", func(r *Recipe) { r.TileWidth = 100000 }, "sheet.tile_width: must be <="},
		{"interval", func(r *Recipe) { r.Interval = 0 }, "sheet.interval: must be >= 10ms"},
		{"columns", func(r *Recipe) { r.Columns = -1 }, "sheet.columns: must be > 0"},
		{"rows", func(r *Recipe) { r.Rows = 0 }, "sheet.rows: must be > 0"},
		{"quality", func(r *Recipe) { r.Quality = 101 }, "sheet.quality: must be in 1..100"},
		{"grace", func(r *Recipe) { r.Grace = -1 }, "sheet.grace: must be >= 0"},
		{"label tiles", func(r *Recipe) { r.LabelTiles = 0 }, "sheet.label_tiles: must be > 0"},
	} {
		r := DefaultRecipe()
		tc.mod(&r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestVLMTokens(t *testing.T) {
	for _, tc := range []struct{ w, h, want int }{
		{384, 384, 258}, {224, 126, 258}, {385, 10, 258}, {768, 768, 258},
		{1120, 504, 516}, {1120, 630, 516}, {1536, 800, 1032}, {0, 5, 0},
	} {
		if got := VLMTokens(tc.w, tc.h); got != tc.want {
			t.Errorf("VLMTokens(%d,%d) = %d, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		k    int64
		want string
	}{{0, "000.00s"}, {1, "000.50s"}, {25, "012.50s"}, {7199, "3599.50s"}, {2000000, "1000000.00s"}} {
		var b [24]byte
		if got := string(formatSeconds(&b, centis(tc.k, 500*time.Millisecond))); got != tc.want {
			t.Errorf("tick %d: %q, want %q", tc.k, got, tc.want)
		}
	}
	var b [24]byte
	if got := string(formatSeconds(&b, centis(3, 333333333))); got != "001.00s" {
		t.Errorf("rounding: %q", got)
	}
}

// inkRows returns the first and last rows of m with a bright pixel (at
// least half-covered white text on the black badge box).
func inkRows(m rgbImage) (first, last int) {
	first = -1
	for y := 0; y < m.h; y++ {
		for x := 0; x < m.w; x++ {
			if m.pix[y*m.stride+3*x] >= 128 {
				if first < 0 {
					first = y
				}
				last = y
				break
			}
		}
	}
	return first, last
}

// TestBadgeLegible: whatever the tile, the badge is a black box at the
// top-left holding white glyphs at least 12% of the tile height and 14 px
// tall, and it fits the tile's width (portrait tiles narrow the glyphs,
// never shorten them).
func TestBadgeLegible(t *testing.T) {
	for _, sz := range [][2]int{{224, 60}, {224, 126}, {224, 168}, {224, 224}, {224, 480}, {153, 86}, {90, 160}, {126, 224}, {640, 480}} {
		w, h := sz[0], sz[1]
		m := rgbImage{pix: make([]byte, w*h*3), w: w, h: h, stride: w * 3}
		m.fill(0, 0, m.w, m.h, [3]byte{128, 128, 128})
		var b [24]byte
		bw, bh := m.drawBadge(formatSeconds(&b, 1250))
		if bw > m.w || bh >= h || bw <= 0 || bh <= 0 {
			t.Errorf("tile %dx%d: badge box %dx%d does not fit", w, h, bw, bh)
			continue
		}
		first, last := inkRows(m.sub(0, 0, bw, bh))
		ink := last - first + 1
		minInk := max(14, (12*h+99)/100)
		if ink < minInk || ink > minInk+3 {
			t.Errorf("tile %dx%d: glyph height %d px, want %d..%d", w, h, ink, minInk, minInk+3)
		}
		// Black box behind white text, with a margin all round.
		if m.pix[0] != 0 || first < 2 || last > bh-3 {
			t.Errorf("tile %dx%d: badge %dx%d not a black box with a margin (ink rows %d..%d)", w, h, bw, bh, first, last)
		}
		if p := m.pix[bh*m.stride:]; p[0] != 128 {
			t.Errorf("tile %dx%d: the box overflows its reported height", w, h)
		}
	}
}

func TestResizeKeepsSmallObjects(t *testing.T) {
	const sw, sh, dw, dh = 1280, 720, 224, 126
	src := make([]byte, sw*sh*3)
	// A 2-px white vertical line and a 3x3 white dot on black.
	for y := 0; y < sh; y++ {
		for x := 600; x < 602; x++ {
			copy(src[(y*sw+x)*3:], []byte{255, 255, 255})
		}
	}
	for y := 100; y < 103; y++ {
		for x := 100; x < 103; x++ {
			copy(src[(y*sw+x)*3:], []byte{255, 255, 255})
		}
	}
	dst := make([]byte, dw*dh*3)
	var r resizer
	r.resize(dst, dw, dh, dw*3, src, sw, sh, sw*3)
	var lineMax, dotMax byte
	for y := 0; y < dh; y++ {
		lineMax = max(lineMax, dst[(y*dw+105)*3])
	}
	for y := 15; y < 20; y++ {
		for x := 15; x < 20; x++ {
			dotMax = max(dotMax, dst[(y*dw+x)*3])
		}
	}
	// Area averaging: a 2-px line over 5.7 px keeps ~35% of its energy.
	if lineMax < 60 || dotMax < 8 {
		t.Fatalf("small objects vanished: line %d, dot %d", lineMax, dotMax)
	}
	// A flat image stays exactly flat.
	for i := range src {
		src[i] = 77
	}
	r.resize(dst, dw, dh, dw*3, src, sw, sh, sw*3)
	for i, v := range dst {
		if v != 77 {
			t.Fatalf("flat image changed at %d: %d", i, v)
		}
	}
}

func TestRawToRGB(t *testing.T) {
	lim := turbojpeg.DefaultLimits
	red, green, blue := []byte{200, 10, 20}, []byte{10, 200, 20}, []byte{10, 20, 200}
	for _, tc := range []struct {
		name string
		enc  string
		w, h int
		step int
		be   bool
		data []byte
		want [][]byte // first two pixels
	}{
		{"rgb8", "rgb8", 2, 1, 6, false, []byte{200, 10, 20, 10, 200, 20}, [][]byte{red, green}},
		{"bgr8", "bgr8", 2, 1, 6, false, []byte{20, 10, 200, 20, 200, 10}, [][]byte{red, green}},
		{"rgba8 padded step", "rgba8", 2, 1, 10, false, []byte{200, 10, 20, 0, 10, 20, 200, 0, 9, 9}, [][]byte{red, blue}},
		{"bgra8", "bgra8", 2, 1, 8, false, []byte{200, 20, 10, 0, 20, 200, 10, 0}, [][]byte{blue, green}},
		{"mono8", "mono8", 2, 1, 2, false, []byte{7, 250}, [][]byte{{7, 7, 7}, {250, 250, 250}}},
		{"mono16 le", "mono16", 2, 1, 4, false, []byte{0x00, 0x10, 0x00, 0x20}, [][]byte{{127, 127, 127}, {255, 255, 255}}},
		{"mono16 be", "mono16", 2, 1, 4, true, []byte{0x10, 0x00, 0x20, 0x00}, [][]byte{{127, 127, 127}, {255, 255, 255}}},
		{"uyvy white black", "yuv422", 2, 1, 4, false, []byte{128, 235, 128, 16}, [][]byte{{255, 255, 255}, {0, 0, 0}}},
		{"yuy2 white black", "yuv422_yuy2", 2, 1, 4, false, []byte{235, 128, 16, 128}, [][]byte{{255, 255, 255}, {0, 0, 0}}},
		{"bayer rggb", "bayer_rggb8", 2, 2, 2, false, []byte{200, 100, 50, 30}, [][]byte{{200, 75, 30}, {200, 75, 30}}},
		{"bayer bggr", "bayer_bggr8", 2, 2, 2, false, []byte{30, 100, 50, 200}, [][]byte{{200, 75, 30}, {200, 75, 30}}},
		{"bayer gbrg", "bayer_gbrg8", 2, 2, 2, false, []byte{100, 30, 200, 50}, [][]byte{{200, 75, 30}, {200, 75, 30}}},
		{"bayer grbg", "bayer_grbg8", 2, 2, 2, false, []byte{100, 200, 30, 50}, [][]byte{{200, 75, 30}, {200, 75, 30}}},
		{"bayer odd size", "bayer_rggb8", 3, 3, 3, false, []byte{200, 100, 200, 50, 30, 50, 200, 100, 200}, [][]byte{{200, 75, 30}, {200, 75, 30}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := RawToRGB(nil, tc.enc, tc.w, tc.h, tc.step, tc.be, tc.data, lim)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				got := out[3*i : 3*i+3]
				for c := range 3 {
					if d := int(got[c]) - int(want[c]); d < -2 || d > 2 {
						t.Fatalf("pixel %d = %v, want %v", i, got, want)
					}
				}
			}
		})
	}
}

func TestRawErrors(t *testing.T) {
	lim := turbojpeg.Limits{MaxWidth: 4096, MaxHeight: 4096, MaxPixels: 1 << 22}
	for _, tc := range []struct {
		name          string
		enc           string
		w, h, step, n int
		want          error
		text          string
	}{
		{"unknown encoding", "32FC1", 2, 2, 8, 16, ErrUnsupportedEncoding, `"32FC1"`},
		{"empty encoding", "", 2, 2, 6, 12, ErrUnsupportedEncoding, `""`},
		{"short step", "rgb8", 4, 2, 11, 22, ErrBadLayout, "step"},
		{"short data", "rgb8", 4, 2, 12, 23, ErrBadLayout, "23"},
		{"long data", "mono8", 4, 2, 4, 9, ErrBadLayout, "9"},
		{"zero width", "mono8", 0, 2, 0, 0, ErrBadLayout, "0x2"},
		{"negative height", "mono8", 2, -2, 2, 0, ErrBadLayout, ""},
		{"absurd", "mono8", 100000, 100000, 100000, 0, turbojpeg.ErrTooLarge, ""},
		{"overflowing step", "mono8", 2, 3, 1 << 62, 6, ErrBadLayout, ""},
	} {
		_, err := RawToRGB(nil, tc.enc, tc.w, tc.h, tc.step, false, make([]byte, tc.n), lim)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: err = %v, want %v containing %q", tc.name, err, tc.want, tc.text)
		}
	}
}

func TestLabelTicks(t *testing.T) {
	for _, tc := range []struct {
		first, last int64
		n           int
		want        []int64
	}{
		{0, 2, 5, []int64{0, 1, 2}},
		{10, 19, 5, []int64{11, 13, 15, 17, 19}},
		{0, 99, 5, []int64{10, 30, 50, 70, 90}},
		{5, 4, 5, nil},
	} {
		got := LabelTicks(tc.first, tc.last, tc.n)
		if len(got) != len(tc.want) {
			t.Fatalf("LabelTicks(%d,%d,%d) = %v, want %v", tc.first, tc.last, tc.n, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("LabelTicks(%d,%d,%d) = %v, want %v", tc.first, tc.last, tc.n, got, tc.want)
			}
		}
	}
}
