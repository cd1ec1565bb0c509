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

// DefaultRecipe returns the recipe of DESIGN.md.
func DefaultRecipe() Recipe { return recipe.Default() }

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
