package recipe

// VLMTile is the side of the square tile a VLM cuts a large image into
// (VLMTokens).
const VLMTile = 768

// VLMTokens is DESIGN.md's accounting rule: an image no larger than 384 px
// on both sides counts 258 tokens; a larger one is cut into 768 x 768
// tiles of 258 tokens each. It lives here, in a package without cgo, so
// that episode's cost line (which reads sheets from disk) and the sheet
// builder (which writes vlm_tokens) apply one rule.
func VLMTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 0
	}
	if w <= 384 && h <= 384 {
		return 258
	}
	return ((w + VLMTile - 1) / VLMTile) * ((h + VLMTile - 1) / VLMTile) * 258
}
