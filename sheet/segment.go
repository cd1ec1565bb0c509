package sheet

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/edged-robotics/edged/sheet/recipe"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// MaxSegmentSide caps maxSide of SegmentImage and BlankImage: a canvas of
// MaxSegmentSide x MaxSegmentSide pixels is MaxSheetPixels (48 MiB RGB),
// the budget of a contact sheet.
const MaxSegmentSide = 4096

// contactLimits are the largest contact sheet a builder writes (the
// recipe's caps): a stored sheet above them is refused from its header,
// before its pixels are allocated.
var contactLimits = turbojpeg.Limits{MaxWidth: recipe.MaxSheetSide, MaxHeight: recipe.MaxSheetSide,
	MaxPixels: recipe.MaxSheetPixels}

// ErrSegmentInput wraps every error of SegmentImage and BlankImage about
// their input (arguments, a sheet that does not decode or whose metadata
// does not describe its JPEG); test with errors.Is.
var ErrSegmentInput = errors.New("sheet: segment image input")

// timeSlack absorbs float rounding of tile times against a range's ends.
const timeSlack = 1e-6

// SegmentImage composes the tiles of sheets whose times (TileMeta.Seconds,
// the printed badge) fall within [from, to] seconds of the episode into
// one JPEG no larger than maxSide x maxSide pixels (1..MaxSegmentSide),
// encoded at quality (1..100), 4:2:0: the image of one segment that the
// cloud annotator shows a VLM, made from the stored contact sheets of one
// camera and episode (kind "episode"; any order). It is laid out as the
// robot's labeling sheet is (at most DefaultLabelTiles tiles, LabelGrid's
// rule within maxSide, reading order, black where the last row is not
// full).
//
// Tiles are cropped from the decoded sheets as they are, badges and
// placeholders included; a tile larger than maxSide is downscaled to fit
// (its badge with it), and tiles of another size than the first chosen
// are scaled to its size. When more tiles fall in the range than fit,
// evenly spaced ones are chosen, the first and the last always among them
// (one fits: the middle one).
//
// A range holding no tile (a segment shorter than the interval) shows the
// one tile nearest its middle when that tile is within half an interval
// of the range; a range with no tile near it (outside the sheets, or no
// sheets) gives BlankImage(maxSide, quality): that is also the image of
// an absent neighbour (the previous segment of the first).
//
// Bad input is an error wrapping ErrSegmentInput, never a panic: a sheet
// that does not decode or is larger than a contact sheet can be, metadata
// whose size or tile rectangles disagree with its JPEG, a range that is
// not finite or ends before it starts. It is safe for concurrent use; the
// bytes returned are the caller's.
func SegmentImage(sheets []Sheet, from, to float64, maxSide, quality int) ([]byte, error) {
	if err := checkSegmentArgs(maxSide, quality); err != nil {
		return nil, err
	}
	if math.IsNaN(from) || math.IsNaN(to) || math.IsInf(from, 0) || math.IsInf(to, 0) || to < from {
		return nil, fmt.Errorf("%w: the range [%g, %g] s is not a time range (pass a segment's start and end seconds)",
			ErrSegmentInput, from, to)
	}
	p, err := planSegment(sheets, from, to, maxSide)
	if err != nil {
		return nil, err
	}
	if len(p.tiles) == 0 {
		return BlankImage(maxSide, quality)
	}
	c, err := newComposer()
	if err != nil {
		return nil, err
	}
	defer c.close()
	return c.compose(sheets, p, quality)
}

// segmentPlan is what SegmentImage draws: tiles in time order, in a grid
// of cols x rows cells of cw x ch pixels. No tiles: a blank.
type segmentPlan struct {
	tiles              []segTile
	cols, rows, cw, ch int
}

// planSegment chooses the tiles of [from, to] and lays them out within
// maxSide. The arguments are checked.
func planSegment(sheets []Sheet, from, to float64, maxSide int) (segmentPlan, error) {
	cands := tilesIn(sheets, from, to)
	if len(cands) == 0 {
		return segmentPlan{}, nil
	}
	first := &sheets[cands[0].sheet].Meta
	if err := checkTileSize(first, cands[0].sheet); err != nil {
		return segmentPlan{}, err
	}
	p := segmentPlan{}
	p.cw, p.ch = fitCell(first.TileWidth, first.TileHeight, maxSide)
	// At most the recipe's label_tiles (DefaultLabelTiles, 5), the robot's
	// labeling sheet's rule, not as many as fit maxSide (9 to 40 in one
	// VLM tile): the token cost is the same, but ANNOTATION.md found that
	// denser sampling did not help and that a label names the change
	// from the segment's beginning to its end (the first and last tiles,
	// always kept); and with one rule an episode's composed images show
	// what its robot's shipped labeling sheets showed, so labels of old
	// and new episodes are comparable.
	var n int
	n, p.cols, p.rows = gridFit(min(len(cands), recipe.DefaultLabelTiles), p.cw, p.ch, maxSide)
	p.tiles = make([]segTile, 0, n)
	for _, i := range spread(len(cands), n) {
		p.tiles = append(p.tiles, cands[i])
	}
	return p, nil
}

// BlankImage is a black maxSide x maxSide JPEG at quality: the image of
// an absent segment (the neighbour before the first or after the last),
// which SegmentImage also returns for a range with no tile near it.
func BlankImage(maxSide, quality int) ([]byte, error) {
	if err := checkSegmentArgs(maxSide, quality); err != nil {
		return nil, err
	}
	enc, err := turbojpeg.NewEncoder()
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	canvas := make([]byte, maxSide*maxSide*3)
	j, err := enc.Encode(nil, canvas, maxSide, maxSide, maxSide*3, quality, turbojpeg.Subsamp420)
	if err != nil {
		return nil, fmt.Errorf("sheet: blank image: %w", err)
	}
	return append([]byte(nil), j...), nil
}

func checkSegmentArgs(maxSide, quality int) error {
	if maxSide < 1 || maxSide > MaxSegmentSide {
		return fmt.Errorf("%w: maxSide %d: must be 1..%d (768 is one VLM tile)", ErrSegmentInput, maxSide, MaxSegmentSide)
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("%w: quality %d: must be 1..100 (the contact sheets' is %d)", ErrSegmentInput, quality, DefaultQuality)
	}
	return nil
}

// segTile is a candidate tile: sheets[sheet].Meta.Tiles[tile].
type segTile struct {
	sheet, tile int
	seconds     float64
	tick        int64
}

// tilesIn returns the tiles of sheets within [from, to] in time order,
// each tick once; none in it: the tile nearest the middle when within
// half an interval of the range.
func tilesIn(sheets []Sheet, from, to float64) []segTile {
	var in []segTile
	var near segTile
	best, mid := math.Inf(1), from+(to-from)/2
	for si := range sheets {
		m := &sheets[si].Meta
		for ti, tm := range m.Tiles {
			st := segTile{sheet: si, tile: ti, seconds: tm.Seconds, tick: tm.Tick}
			if tm.Seconds >= from-timeSlack && tm.Seconds <= to+timeSlack {
				in = append(in, st)
			} else if d := math.Abs(tm.Seconds - mid); d < best && d <= (to-from)/2+m.IntervalSeconds/2+timeSlack {
				best, near = d, st
			}
		}
	}
	if len(in) == 0 && !math.IsInf(best, 1) {
		return []segTile{near}
	}
	slices.SortStableFunc(in, func(a, b segTile) int {
		return cmp.Or(cmp.Compare(a.seconds, b.seconds), cmp.Compare(a.tick, b.tick))
	})
	return slices.CompactFunc(in, func(a, b segTile) bool { return a.seconds == b.seconds && a.tick == b.tick })
}

// spread returns n indices among 0..count-1 evenly spaced, the first and
// the last included (n = 1: the middle one); all when n >= count.
func spread(count, n int) []int {
	n = min(n, count)
	if n <= 0 {
		return nil
	}
	out := make([]int, n)
	if n == 1 {
		out[0] = (count - 1) / 2
		return out
	}
	for i := range out {
		out[i] = (i*(count-1) + (n-1)/2) / (n - 1)
	}
	return out
}

// fitCell scales a tw x th tile down, keeping its aspect, until it fits
// in side x side (at least 1 x 1).
func fitCell(tw, th, side int) (int, int) {
	if tw > side {
		tw, th = side, max(1, th*side/tw)
	}
	if th > side {
		tw, th = max(1, tw*side/th), side
	}
	return tw, th
}

// checkTileSize checks a sheet's tile size before it is used in
// arithmetic.
func checkTileSize(m *Meta, si int) error {
	if m.TileWidth < 1 || m.TileHeight < 1 || m.TileWidth > recipe.MaxSheetSide || m.TileHeight > recipe.MaxSheetSide {
		return fmt.Errorf("%w: sheet %d (index %d): tile size %dx%d: must be 1..%d (pass the sheet's own metadata)",
			ErrSegmentInput, si, m.Index, m.TileWidth, m.TileHeight, recipe.MaxSheetSide)
	}
	return nil
}
