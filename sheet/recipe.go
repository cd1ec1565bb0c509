package sheet

import "github.com/edged-robotics/edged/sheet/recipe"

// Recipe is the contact-sheet recipe of DESIGN.md. It and its rules
// (defaults, limits, Validate) live in sheet/recipe, a cgo-free leaf
// that the config package applies too: config check and the builder
// share one rule set.
type Recipe = recipe.Recipe

// Defaults and limits of Recipe (see sheet/recipe).
const (
	DefaultInterval   = recipe.DefaultInterval
	DefaultTileWidth  = recipe.DefaultTileWidth
	DefaultColumns    = recipe.DefaultColumns
	DefaultRows       = recipe.DefaultRows
	DefaultQuality    = recipe.DefaultQuality
	DefaultGrace      = recipe.DefaultGrace
	DefaultLabelTiles = recipe.DefaultLabelTiles
	MaxTileWidth      = recipe.MaxTileWidth
	MaxTiles          = recipe.MaxTiles
	MaxSheetPixels    = recipe.MaxSheetPixels
)

// Presets (see sheet/recipe).
const (
	PresetPublished  = recipe.PresetPublished
	PresetLowCost    = recipe.PresetLowCost
	LowCostTileWidth = recipe.LowCostTileWidth
)

// DefaultRecipe returns the recipe of DESIGN.md (the published preset).
func DefaultRecipe() Recipe { return recipe.Default() }

// LowCostRecipe returns the recipe of PresetLowCost.
func LowCostRecipe() Recipe { return recipe.LowCost() }

// PresetRecipe returns the recipe of a preset ("" is PresetPublished).
func PresetRecipe(name string) (Recipe, error) { return recipe.Preset(name) }

// VLMTile is the side of the square tile a VLM cuts a large image into
// (VLMTokens).
const VLMTile = recipe.VLMTile

// LabelGrid lays out a labeling sheet of up to n tiles of tw x th pixels
// to fit one VLMTile x VLMTile tile, so that it costs 258 tokens: as few
// rows as fit the tiles, then as few columns as fill those rows (5 tiles
// of 224 px: 3 + 2, 672 px wide). It returns the tiles that fit (at most
// n, at least 1) and the grid. A tile wider or taller than VLMTile alone
// cannot fit: one tile is shown, in one cell.
func LabelGrid(n, tw, th int) (tiles, cols, rows int) { return gridFit(n, tw, th, VLMTile) }

// gridFit is the layout of LabelGrid within side x side pixels (the
// labeling sheet's and SegmentImage's, one rule): as few rows as fit the
// tiles, then as few columns as fill those rows.
func gridFit(n, tw, th, side int) (tiles, cols, rows int) {
	if n <= 0 {
		return 0, 0, 0
	}
	maxCols, maxRows := max(1, side/max(tw, 1)), max(1, side/max(th, 1))
	tiles = min(n, maxCols*maxRows)
	rows = (tiles + maxCols - 1) / maxCols
	cols = (tiles + rows - 1) / rows
	return tiles, cols, rows
}

// VLMTokens is DESIGN.md's accounting rule (recipe.VLMTokens): an image
// no larger than 384 px on both sides counts 258 tokens; a larger one is
// cut into 768 x 768 tiles of 258 tokens each.
func VLMTokens(w, h int) int { return recipe.VLMTokens(w, h) }
