package sheet

import (
	"errors"
	"fmt"
	"time"
)

// Recipe is the contact-sheet recipe of DESIGN.md. Every field has a
// documented default (DefaultRecipe); config.sheet maps onto it.
type Recipe struct {
	// Interval between ticks (default 0.5 s): tick k is at episode
	// start + k*Interval.
	Interval time.Duration `json:"interval"`
	// TileWidth in pixels (default 224); the tile height keeps the
	// camera's aspect ratio.
	TileWidth int `json:"tile_width"`
	// Columns and Rows of a sheet (default 5 x 4: 20 tiles, 10 s).
	Columns int `json:"columns"`
	Rows    int `json:"rows"`
	// Quality of the sheet JPEG, 1..100 (default 84).
	Quality int `json:"quality"`
	// Grace is how long after a tick's window closes (tick + Interval/2)
	// late frames may still arrive (default 0.5 s).
	Grace time.Duration `json:"grace"`
	// LabelTiles is the most tiles of a segment's labeling sheet
	// (default 5). The sheet is laid out to fit one 768 x 768 VLM tile
	// (LabelGrid), which may show fewer.
	LabelTiles int `json:"label_tiles"`
	// WaitGrace makes every tick wait its whole grace for late frames.
	// Default false: a tick is final as soon as its frame is settled (a
	// later frame shows that nothing nearer can come), which takes a
	// sheet's latency from interval/2 + grace down to about one frame
	// period. A topic's frames arrive in order over its TCPROS
	// connection; set WaitGrace when several publishers share a camera
	// topic and frames can arrive out of order.
	WaitGrace bool `json:"wait_grace,omitempty"`
}

// Defaults of Recipe.
const (
	DefaultInterval   = 500 * time.Millisecond
	DefaultTileWidth  = 224
	DefaultColumns    = 5
	DefaultRows       = 4
	DefaultQuality    = 84
	DefaultGrace      = 500 * time.Millisecond
	DefaultLabelTiles = 5
	// MaxTileWidth caps tile_width (as config does).
	MaxTileWidth = 4096
	// MaxTiles caps columns x rows.
	MaxTiles = 400
)

// DefaultRecipe returns the recipe of DESIGN.md (the published preset).
func DefaultRecipe() Recipe {
	return Recipe{
		Interval: DefaultInterval, TileWidth: DefaultTileWidth, Columns: DefaultColumns, Rows: DefaultRows,
		Quality: DefaultQuality, Grace: DefaultGrace, LabelTiles: DefaultLabelTiles,
	}
}

// Recipe presets (config sheet.preset).
const (
	// PresetPublished is DefaultRecipe: 224-px tiles, 5 x 4. A full
	// contact sheet of a 4:3 or 16:9 camera is 1120 px wide: two
	// 768-px VLM tiles, 516 tokens per 10 s; a labeling sheet 258.
	PresetPublished = "published"
	// PresetLowCost is LowCostRecipe: 153-px tiles, 5 x 4, so that a
	// full contact sheet (765 x 460 for 4:3, 765 x 344 for 16:9) is one
	// VLM tile, 258 tokens per 10 s, for fleets that need the cost
	// rather than the detail. Ticks, sampling and labeling sheets are
	// those of the published recipe.
	PresetLowCost = "low-cost"
	// LowCostTileWidth is the tile width of PresetLowCost: the widest
	// tile of which 5 fit in 768 px.
	LowCostTileWidth = 153
)

// LowCostRecipe returns the recipe of PresetLowCost.
func LowCostRecipe() Recipe {
	r := DefaultRecipe()
	r.TileWidth = LowCostTileWidth
	return r
}

// Presets lists the preset names, the default first.
var Presets = []string{PresetPublished, PresetLowCost}

// PresetRecipe returns the recipe of a preset ("" is PresetPublished).
func PresetRecipe(name string) (Recipe, error) {
	switch name {
	case "", PresetPublished:
		return DefaultRecipe(), nil
	case PresetLowCost:
		return LowCostRecipe(), nil
	}
	return Recipe{}, fmt.Errorf("sheet.preset: unknown preset %q (want one of %v)", name, Presets)
}

// Validate reports every invalid field, each error naming it
// (`sheet.tile_width: must be > 0`). It does no I/O.
func (r Recipe) Validate() error {
	var errs []error
	bad := func(field, msg string, args ...any) {
		errs = append(errs, fmt.Errorf("sheet.%s: %s", field, fmt.Sprintf(msg, args...)))
	}
	if r.Interval <= 0 {
		bad("interval", "must be > 0 (default %s)", DefaultInterval)
	}
	if r.TileWidth <= 0 {
		bad("tile_width", "must be > 0 (default %d)", DefaultTileWidth)
	} else if r.TileWidth > MaxTileWidth {
		bad("tile_width", "must be <= %d", MaxTileWidth)
	}
	if r.Columns <= 0 {
		bad("columns", "must be > 0 (default %d)", DefaultColumns)
	}
	if r.Rows <= 0 {
		bad("rows", "must be > 0 (default %d)", DefaultRows)
	}
	if r.Columns > 0 && r.Rows > 0 && r.Columns*r.Rows > MaxTiles {
		bad("rows", "columns x rows must be <= %d", MaxTiles)
	}
	if r.Quality < 1 || r.Quality > 100 {
		bad("quality", "must be in 1..100 (default %d)", DefaultQuality)
	}
	if r.Grace < 0 {
		bad("grace", "must be >= 0 (default %s)", DefaultGrace)
	}
	if r.LabelTiles <= 0 {
		bad("label_tiles", "must be > 0 (default %d)", DefaultLabelTiles)
	}
	return errors.Join(errs...)
}

// TilesPerSheet is Columns x Rows.
func (r Recipe) TilesPerSheet() int { return r.Columns * r.Rows }

// VLMTile is the side of the square tile a VLM cuts a large image into
// (VLMTokens).
const VLMTile = 768

// LabelGrid lays out a labeling sheet of up to n tiles of tw x th pixels
// to fit one VLMTile x VLMTile tile, so that it costs 258 tokens: as few
// rows as fit the tiles, then as few columns as fill those rows (5 tiles
// of 224 px: 3 + 2, 672 px wide). It returns the tiles that fit (at most
// n, at least 1) and the grid. A tile wider or taller than VLMTile alone
// cannot fit: one tile is shown, in one cell.
func LabelGrid(n, tw, th int) (tiles, cols, rows int) {
	if n <= 0 {
		return 0, 0, 0
	}
	maxCols, maxRows := max(1, VLMTile/max(tw, 1)), max(1, VLMTile/max(th, 1))
	tiles = min(n, maxCols*maxRows)
	rows = (tiles + maxCols - 1) / maxCols
	cols = (tiles + rows - 1) / rows
	return tiles, cols, rows
}

// VLMTokens is DESIGN.md's accounting rule: an image no larger than 384 px
// on both sides counts 258 tokens; a larger one is cut into 768 x 768
// tiles of 258 tokens each.
func VLMTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 0
	}
	if w <= 384 && h <= 384 {
		return 258
	}
	return ((w + 767) / 768) * ((h + 767) / 768) * 258
}
