package sheet

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// contactSheets returns the contact sheets of an episode of end seconds
// of a w x h camera with recipe r, one frame per tick, each frame of its
// own colour (frameColour).
func contactSheets(t testing.TB, r Recipe, w, h int, end time.Duration) []Sheet {
	t.Helper()
	return contactSheetsOf(t, r, end, func(k int) []byte { return testJPEG(t, w, h, frameColour(k)) })
}

// contactSheetsOf returns the contact sheets of an episode of end seconds
// with recipe r, one frame per tick: the JPEG frame(k) at tick k.
func contactSheetsOf(t testing.TB, r Recipe, end time.Duration, frame func(k int) []byte) []Sheet {
	t.Helper()
	ring := newRing(t, ringbuf.Config{})
	var c collector
	b := newTestBuilder(t, ring, r, &c)
	for k := 0; time.Duration(k)*r.Interval < end; k++ {
		f := jpegFrame(frame(k), epoch.Add(time.Duration(k)*r.Interval))
		if err := b.Advance(f.Stamp); err != nil {
			t.Fatal(err)
		}
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(epoch.Add(end - r.Interval)); err != nil {
		t.Fatal(err)
	}
	out := make([]Sheet, len(c.sheets))
	for i, s := range c.sheets {
		out[i] = *s
	}
	return out
}

func frameColour(k int) [3]byte { return [3]byte{byte(40 + 37*k), byte(200 - 23*k), byte(90 + 61*k)} }

// decodeRGB decodes a JPEG at full scale.
func decodeRGB(t testing.TB, j []byte) (w, h int, pix []byte) {
	t.Helper()
	d, err := turbojpeg.NewDecoder(turbojpeg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w, h, pix, err = d.Decode(j, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w, h, pix
}

func ticksOf(p segmentPlan) []int64 {
	var out []int64
	for _, t := range p.tiles {
		out = append(out, t.tick)
	}
	return out
}

func tickRange(first, last int64) []int64 {
	var out []int64
	for k := first; k <= last; k++ {
		out = append(out, k)
	}
	return out
}

// Which tiles a segment image shows, in a 25 s episode of 0.5 s ticks
// (ticks 0..49) with 224 x 168 tiles (3 x 4 fit in 768 px).
func TestSegmentImageChoosesTiles(t *testing.T) {
	sheets := contactSheets(t, DefaultRecipe(), 64, 48, 25*time.Second)
	reversed := slices.Clone(sheets)
	slices.Reverse(reversed)
	for _, tc := range []struct {
		name       string
		sheets     []Sheet
		from, to   float64
		maxSide    int
		ticks      []int64
		cols, rows int
	}{
		{"five of six, both ends inclusive and kept", sheets, 2.5, 5, 768, []int64{5, 6, 8, 9, 10}, 3, 2},
		{"across two sheets", sheets, 9, 11, 768, tickRange(18, 22), 3, 2},
		{"sheets in any order", reversed, 9, 11, 768, tickRange(18, 22), 3, 2},
		{"more than the labeling sheet's five: evenly spaced, first and last kept", sheets, 0, 24.5, 768,
			[]int64{0, 12, 25, 37, 49}, 3, 2},
		{"one column of two", sheets, 0, 24.5, 384, []int64{0, 49}, 1, 2},
		{"one fits: the middle one", sheets, 0, 24.5, 200, []int64{24}, 1, 1},
		{"shorter than the interval: the nearest tile", sheets, 3.1, 3.3, 768, []int64{6}, 1, 1},
		{"just after the last tile: the last", sheets, 24.6, 24.7, 768, []int64{49}, 1, 1},
		{"beyond the episode: blank", sheets, 25.1, 26, 768, nil, 0, 0},
		{"before the episode: blank", sheets, -3, -1, 768, nil, 0, 0},
		{"no sheets: blank", nil, 0, 10, 768, nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planSegment(tc.sheets, tc.from, tc.to, tc.maxSide)
			if err != nil {
				t.Fatal(err)
			}
			if got := ticksOf(p); !slices.Equal(got, tc.ticks) || p.cols != tc.cols || p.rows != tc.rows {
				t.Errorf("ticks %v in %d x %d, want %v in %d x %d", got, p.cols, p.rows, tc.ticks, tc.cols, tc.rows)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		count, n int
		want     []int
	}{
		{0, 3, nil},
		{5, 0, nil},
		{3, 5, []int{0, 1, 2}},
		{5, 5, []int{0, 1, 2, 3, 4}},
		{5, 1, []int{2}},
		{4, 1, []int{1}},
		{10, 2, []int{0, 9}},
		{10, 3, []int{0, 5, 9}},
		{11, 3, []int{0, 5, 10}},
		{50, 12, []int{0, 4, 9, 13, 18, 22, 27, 31, 36, 40, 45, 49}},
	} {
		if got := spread(tc.count, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("spread(%d, %d) = %v, want %v", tc.count, tc.n, got, tc.want)
		}
	}
}

// meanDiff is the mean absolute difference of two w x h regions.
func meanDiff(a []byte, astride int, b []byte, bstride, w, h int) float64 {
	var sum int
	for y := 0; y < h; y++ {
		ra, rb := a[y*astride:y*astride+w*3], b[y*bstride:y*bstride+w*3]
		for i := range ra {
			sum += abs(int(ra[i]) - int(rb[i]))
		}
	}
	return float64(sum) / float64(w*h*3)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Each cell of a segment image is its tile of the contact sheet, badge
// included, within JPEG tolerance; and not another tile.
func TestSegmentImagePixelsAreTheSheetTiles(t *testing.T) {
	sheets := contactSheets(t, DefaultRecipe(), 64, 48, 25*time.Second)
	p, err := planSegment(sheets, 8, 12.5, VLMTile)
	if err != nil {
		t.Fatal(err)
	}
	j, err := SegmentImage(sheets, 8, 12.5, VLMTile, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	w, h, out := decodeRGB(t, j)
	if w != p.cols*p.cw || h != p.rows*p.ch {
		t.Fatalf("image %dx%d, plan %d x %d cells of %dx%d", w, h, p.cols, p.rows, p.cw, p.ch)
	}
	for i, st := range p.tiles {
		s := &sheets[st.sheet]
		tm := s.Meta.Tiles[st.tile]
		sw, _, src := decodeRGB(t, s.JPEG)
		tw, th := s.Meta.TileWidth, s.Meta.TileHeight
		tile := src[(tm.Row*th*sw+tm.Column*tw)*3:]
		cell := gridCell(out, p.cols, p.cw, p.ch, i)
		if d := meanDiff(cell.pix, cell.stride, tile, sw*3, tw, th); d > 2.5 {
			t.Errorf("cell %d (tick %d): mean difference %.2f from its tile", i, tm.Tick, d)
		}
		other := gridCell(out, p.cols, p.cw, p.ch, (i+1)%len(p.tiles))
		if d := meanDiff(other.pix, other.stride, tile, sw*3, tw, th); d < 10 {
			t.Errorf("cell %d (tick %d) also matches the next cell (%.2f): the test cannot tell tiles apart", i, tm.Tick, d)
		}
	}
}

// Whatever maxSide, the image fits in it, and is the plan's size.
func TestSegmentImageFitsMaxSide(t *testing.T) {
	sheets := contactSheets(t, DefaultRecipe(), 64, 48, 12*time.Second)
	portrait := contactSheets(t, DefaultRecipe(), 48, 96, 6*time.Second)
	for _, sh := range [][]Sheet{sheets, portrait} {
		for _, side := range []int{1, 16, 100, 200, 224, 384, 768, 1000, 2048} {
			for _, r := range [][2]float64{{0, 11.5}, {2, 2.2}, {40, 50}} {
				t.Run(fmt.Sprintf("%d %v", side, r), func(t *testing.T) {
					j, err := SegmentImage(sh, r[0], r[1], side, DefaultQuality)
					if err != nil {
						t.Fatal(err)
					}
					w, h, _ := decodeRGB(t, j)
					if w < 1 || h < 1 || w > side || h > side {
						t.Errorf("image %dx%d for maxSide %d", w, h, side)
					}
				})
			}
		}
	}
}

// The blank is maxSide square and black.
func TestBlankImage(t *testing.T) {
	j, err := BlankImage(VLMTile, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	w, h, pix := decodeRGB(t, j)
	if w != VLMTile || h != VLMTile || slices.Max(pix) > 8 {
		t.Errorf("blank %dx%d, brightest %d", w, h, slices.Max(pix))
	}
}

// Bad input is an error wrapping ErrSegmentInput, never a panic.
func TestSegmentImageBadInput(t *testing.T) {
	good := contactSheets(t, DefaultRecipe(), 64, 48, 5*time.Second)
	with := func(f func(*Sheet)) []Sheet {
		s := good[0]
		s.Meta.Tiles = slices.Clone(s.Meta.Tiles)
		f(&s)
		return []Sheet{s}
	}
	huge := setJPEGSize(t, good[0].JPEG, 20000, 20000)
	for _, tc := range []struct {
		name     string
		sheets   []Sheet
		from, to float64
		maxSide  int
		quality  int
		is       error
	}{
		{"maxSide 0", good, 0, 5, 0, 84, nil},
		{"maxSide too large", good, 0, 5, MaxSegmentSide + 1, 84, nil},
		{"quality 0", good, 0, 5, 768, 0, nil},
		{"quality 101", good, 0, 5, 768, 101, nil},
		{"ends before it starts", good, 5, 4, 768, 84, nil},
		{"NaN", good, math.NaN(), 4, 768, 84, nil},
		{"infinite", good, 0, math.Inf(1), 768, 84, nil},
		{"not a JPEG", with(func(s *Sheet) { s.JPEG = []byte("not a jpeg") }), 0, 5, 768, 84, turbojpeg.ErrCorrupt},
		{"empty JPEG", with(func(s *Sheet) { s.JPEG = nil }), 0, 5, 768, 84, turbojpeg.ErrEmpty},
		{"truncated JPEG", with(func(s *Sheet) { s.JPEG = s.JPEG[:len(s.JPEG)/2] }), 0, 5, 768, 84, turbojpeg.ErrCorrupt},
		{"huge JPEG", with(func(s *Sheet) { s.JPEG = huge; s.Meta.Width, s.Meta.Height = 20000, 20000 }), 0, 5, 768, 84, turbojpeg.ErrTooLarge},
		{"size not the JPEG's", with(func(s *Sheet) { s.Meta.Width++ }), 0, 5, 768, 84, nil},
		{"tile outside", with(func(s *Sheet) { s.Meta.Tiles[3].Column = 5 }), 0, 5, 768, 84, nil},
		{"tile row outside", with(func(s *Sheet) { s.Meta.Tiles[3].Row = s.Meta.Rows }), 0, 5, 768, 84, nil},
		{"negative column", with(func(s *Sheet) { s.Meta.Tiles[0].Column = -1 }), 0, 5, 768, 84, nil},
		{"huge row", with(func(s *Sheet) { s.Meta.Tiles[0].Row = math.MaxInt }), 0, 5, 768, 84, nil},
		{"tile width 0", with(func(s *Sheet) { s.Meta.TileWidth = 0 }), 0, 5, 768, 84, nil},
		{"tile height huge", with(func(s *Sheet) { s.Meta.TileHeight = math.MaxInt }), 0, 5, 768, 84, nil},
		{"tile wider than the sheet", with(func(s *Sheet) { s.Meta.TileWidth = s.Meta.Width + 1 }), 0, 5, 768, 84, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := SegmentImage(tc.sheets, tc.from, tc.to, tc.maxSide, tc.quality)
			if !errors.Is(err, ErrSegmentInput) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("got %d bytes, error %v; want %v", len(j), err, tc.is)
			}
		})
	}
}

// setJPEGSize rewrites the size in a baseline JPEG's SOF0 header.
func setJPEGSize(t testing.TB, j []byte, w, h int) []byte {
	t.Helper()
	j = slices.Clone(j)
	for i := 2; i+8 < len(j); i++ {
		if j[i] == 0xFF && j[i+1] == 0xC0 {
			j[i+5], j[i+6], j[i+7], j[i+8] = byte(h>>8), byte(h), byte(w>>8), byte(w)
			return j
		}
	}
	t.Fatal("no SOF0 marker")
	return nil
}

// Sheets of another tile size than the first chosen tile's (a recipe
// changed mid-fleet) are scaled into its cells.
func TestSegmentImageMixedTileSizes(t *testing.T) {
	big := contactSheets(t, DefaultRecipe(), 64, 48, 10*time.Second)
	r := DefaultRecipe()
	r.TileWidth = 112
	small := contactSheets(t, r, 64, 48, 20*time.Second)[1] // ticks 20..39, 10-20 s
	sheets := []Sheet{big[0], small}
	p, err := planSegment(sheets, 8, 12, VLMTile)
	if err != nil {
		t.Fatal(err)
	}
	if got := ticksOf(p); !slices.Equal(got, []int64{16, 18, 20, 22, 24}) || p.cw != 224 || p.ch != 168 {
		t.Fatalf("ticks %v in cells of %dx%d", got, p.cw, p.ch)
	}
	j, err := SegmentImage(sheets, 8, 12, VLMTile, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	_, _, out := decodeRGB(t, j)
	for i, k := range ticksOf(p) {
		// The middle of each cell is the frame's colour.
		cell := gridCell(out, p.cols, p.cw, p.ch, i)
		c, px := frameColour(int(k)), cell.pix[(p.ch*3/4)*cell.stride+p.cw/2*3:]
		if d := meanDiff(px, 0, c[:], 0, 1, 1); d > 6 {
			t.Errorf("cell %d (tick %d): %v, want about %v", i, k, px[:3], c)
		}
	}
}
