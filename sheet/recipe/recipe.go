// Package recipe is the contact-sheet recipe (DESIGN.md "Contact
// sheets") and its one rule set: the limits and Validate that `edged
// config check`, `edged run` (through the config package) and the sheet
// builder all apply, so that they can never disagree.
//
// It imports nothing of edged but internal/fielderr, and no cgo: the
// config package applies it to the sheet section, the sheet package
// builds what it allows.
//
// The memory budget. A builder holds one RGB canvas per camera, sized
// columns x rows tiles of tile_width x tile height; the tile height
// follows the camera's aspect ratio, unknown until its first frame.
// Validate therefore checks the sheet of 4:3 tiles (the aspect of a
// placeholder sheet and the tallest usual camera) against MaxSheetPixels
// and MaxSheetSide, and MaxTileHeight caps the tile height of a taller
// camera (its frames are letterboxed), so a canvas never exceeds
// MaxSheetPixels x 3 bytes (48 MiB) whatever the camera sends.
package recipe

import (
	"errors"
	"strings"
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// Recipe is the contact-sheet recipe. Every field has a documented
// default (Default); config.sheet maps onto it.
type Recipe struct {
	// Interval between ticks (default 0.5 s, at least MinInterval): tick
	// k is at episode start + k*Interval.
	Interval time.Duration `json:"interval"`
	// TileWidth in pixels (default 224, at most MaxTileWidth); the tile
	// height keeps the camera's aspect ratio.
	TileWidth int `json:"tile_width"`
	// Columns and Rows of a sheet (default 5 x 4: 20 tiles, 10 s; at
	// most MaxTiles tiles).
	Columns int `json:"columns"`
	Rows    int `json:"rows"`
	// Quality of the sheet JPEG, 1..100 (default 84).
	Quality int `json:"quality"`
	// Grace is how long after a tick's window closes (tick + Interval/2)
	// late frames may still arrive (default 1 s, DefaultGrace).
	Grace time.Duration `json:"grace"`
	// LabelTiles is the most tiles of a segment's labeling sheet
	// (default 5, at most MaxTiles).
	LabelTiles int `json:"label_tiles"`
	// WaitGrace makes every tick wait its whole grace for late frames.
	// Default false: a tick is final as soon as its frame is settled (a
	// later frame shows that nothing nearer can come), which takes a
	// sheet's latency from interval/2 + grace down to about one frame
	// period. A topic's frames arrive in order over its TCPROS
	// connection; set WaitGrace when several publishers share a camera
	// topic and frames can arrive out of order.
	WaitGrace bool `json:"wait_grace,omitempty"`
	// ShipLabelSheets makes each segment's labeling sheet on the robot,
	// stores and ships it. Default false, in both presets (the robot then
	// makes none, nor keeps the tiles they need): the cloud
	// composes a segment's image from the shipped contact sheets
	// (sheet.SegmentImage: the same tiles, at the same tile width and
	// quality, with their printed times, within one VLM tile), so
	// shipping it too spent about a sixth of the bytes (issue 25). Set it
	// for a receiving side that reads shipped labeling sheets only.
	ShipLabelSheets bool `json:"ship_label_sheets,omitempty"`
}

// Defaults of Recipe.
const (
	DefaultInterval  = 500 * time.Millisecond
	DefaultTileWidth = 224
	DefaultColumns   = 5
	DefaultRows      = 4
	DefaultQuality   = 84
	// DefaultGrace is what edged run has always used (config's
	// sheet.grace); `edged sheet` and the builders take it from here.
	DefaultGrace      = time.Second
	DefaultLabelTiles = 5
)

// Limits of Recipe.
const (
	// MinInterval: a shorter interval ticks faster than cameras publish.
	MinInterval = 10 * time.Millisecond
	// MaxTileWidth caps tile_width.
	MaxTileWidth = 4096
	// MaxTiles caps columns x rows, and label_tiles.
	MaxTiles = 400
	// MaxSheetPixels caps a sheet's (and a labeling sheet's) pixels:
	// 16 Mi pixels, a 48 MiB RGB canvas per camera.
	MaxSheetPixels = 1 << 24
	// MaxSheetSide caps a sheet's width and height in pixels (JPEG
	// allows 65535; VLMs downscale anything larger than a few thousand).
	MaxSheetSide = 16384
)

// Default returns the recipe of DESIGN.md.
func Default() Recipe {
	return Recipe{
		Interval: DefaultInterval, TileWidth: DefaultTileWidth, Columns: DefaultColumns, Rows: DefaultRows,
		Quality: DefaultQuality, Grace: DefaultGrace, LabelTiles: DefaultLabelTiles,
	}
}

// Validate reports every invalid field, each error a *fielderr.Error
// naming its config key (`sheet.tile_width: must be > 0`), which a
// caller that took the value from a flag can rename. It does no I/O.
func (r Recipe) Validate() error {
	var errs []error
	bad := func(field, msg string, args ...any) {
		errs = append(errs, fielderr.New("sheet."+field, msg, args...))
	}
	if r.Interval < MinInterval {
		bad("interval", "must be >= %s (default %s)", MinInterval, DefaultInterval)
	}
	if r.TileWidth <= 0 {
		bad("tile_width", "must be > 0 (default %d)", DefaultTileWidth)
	} else if r.TileWidth > MaxTileWidth {
		bad("tile_width", "must be <= %d (default %d)", MaxTileWidth, DefaultTileWidth)
	}
	if r.Columns <= 0 {
		bad("columns", "must be > 0 (default %d)", DefaultColumns)
	}
	if r.Rows <= 0 {
		bad("rows", "must be > 0 (default %d)", DefaultRows)
	}
	if r.Columns > 0 && r.Rows > 0 && r.Columns > MaxTiles/r.Rows {
		bad("rows", "columns x rows must be <= %d, got %d x %d", MaxTiles, r.Columns, r.Rows)
	}
	if r.Quality < 1 || r.Quality > 100 {
		bad("quality", "must be in 1..100 (default %d)", DefaultQuality)
	}
	if r.Grace < 0 {
		bad("grace", "must be >= 0 (default %s)", DefaultGrace)
	}
	if r.LabelTiles <= 0 {
		bad("label_tiles", "must be > 0 (default %d)", DefaultLabelTiles)
	} else if r.LabelTiles > MaxTiles {
		bad("label_tiles", "must be <= %d (default %d)", MaxTiles, DefaultLabelTiles)
	}
	if len(errs) == 0 {
		r.checkBudget(bad)
	}
	return errors.Join(errs...)
}

// checkBudget checks the sheet of 4:3 tiles, and the labeling sheet (a
// row of LabelTiles tiles), against MaxSheetSide and MaxSheetPixels. The
// sizes fit in an int64 once the per-field limits hold.
func (r Recipe) checkBudget(bad func(field, msg string, args ...any)) {
	tw, th := int64(r.TileWidth), int64(TileHeight(r.TileWidth, 4, 3))
	w, h := int64(r.Columns)*tw, int64(r.Rows)*th
	lw := int64(r.LabelTiles) * tw
	switch {
	case w > MaxSheetSide:
		bad("columns", "a sheet of %d columns of tile_width %d is %d px wide; the most is %d (fewer columns or a smaller tile_width)",
			r.Columns, tw, w, MaxSheetSide)
	case h > MaxSheetSide:
		bad("rows", "a sheet of %d rows of %d px high (4:3) tiles is %d px high; the most is %d (fewer rows or a smaller tile_width)",
			r.Rows, th, h, MaxSheetSide)
	case w*h > MaxSheetPixels:
		bad("tile_width", "a sheet of %d x %d tiles of %d x %d px (4:3) has %d pixels (%d MiB of memory per camera); the most is %d (%d MiB): use fewer or smaller tiles",
			r.Columns, r.Rows, tw, th, w*h, w*h*3>>20, MaxSheetPixels, MaxSheetPixels*3>>20)
	case lw > MaxSheetSide || lw*th > MaxSheetPixels:
		bad("tile_width", "a labeling sheet of %d tiles of %d x %d px is over the limits (%d px wide, %d pixels): use a smaller tile_width",
			r.LabelTiles, tw, th, MaxSheetSide, MaxSheetPixels)
	}
}

// TilesPerSheet is Columns x Rows.
func (r Recipe) TilesPerSheet() int { return r.Columns * r.Rows }

// MaxTileHeight is the tallest tile a valid recipe may use: its sheets
// and labeling sheets then stay within MaxSheetSide and MaxSheetPixels
// whatever the camera's aspect ratio (at least 1).
func (r Recipe) MaxTileHeight() int {
	if r.TileWidth <= 0 || r.Columns <= 0 || r.Rows <= 0 {
		return 1
	}
	n := max(r.TilesPerSheet(), r.LabelTiles)
	return max(1, min(MaxSheetSide/r.Rows, MaxSheetPixels/(n*r.TileWidth)))
}

// TileHeight is the tile height keeping a w x h frame's aspect ratio at
// tile width tw (at least 1); a frame without a size counts as 4:3.
func TileHeight(tw, w, h int) int {
	if w <= 0 || h <= 0 {
		return tw * 3 / 4
	}
	return max(1, (tw*h+w/2)/w)
}

// Recipe presets (config sheet.preset).
const (
	// PresetPublished is Default: 224-px tiles, 5 x 4. A full contact
	// sheet of a 4:3 or 16:9 camera is 1120 px wide: two 768-px VLM
	// tiles, 516 tokens per 10 s; a labeling sheet 258.
	PresetPublished = "published"
	// PresetLowCost is LowCost: 153-px tiles, 5 x 4, so that a full
	// contact sheet (765 x 460 for 4:3, 765 x 344 for 16:9) is one VLM
	// tile, 258 tokens per 10 s, for fleets that need the cost rather
	// than the detail. Ticks, sampling and labeling sheets are those of
	// the published recipe.
	PresetLowCost = "low-cost"
	// LowCostTileWidth is the tile width of PresetLowCost: the widest
	// tile of which 5 fit in 768 px.
	LowCostTileWidth = 153
)

// Presets lists the preset names, the default first.
var Presets = []string{PresetPublished, PresetLowCost}

// LowCost returns the recipe of PresetLowCost.
func LowCost() Recipe {
	r := Default()
	r.TileWidth = LowCostTileWidth
	return r
}

// Preset returns the recipe of a preset ("" is PresetPublished).
func Preset(name string) (Recipe, error) {
	switch name {
	case "", PresetPublished:
		return Default(), nil
	case PresetLowCost:
		return LowCost(), nil
	}
	return Recipe{}, fielderr.New("sheet.preset", "must be %s, got %q", strings.Join(Presets, " or "), name)
}
