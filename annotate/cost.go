package annotate

import "strings"

// Prices of a model in USD per million tokens, input and output.
type Prices struct {
	Input, Output float64
}

// Cost of in prompt and out completion tokens.
func (p Prices) Cost(in, out int64) float64 {
	return (float64(in)*p.Input + float64(out)*p.Output) / 1e6
}

// listPrices are a few models' published list prices (USD per million
// tokens, standard tier, as published in 2025): a default when
// --price-input and --price-output are not given. Prices change: give
// them for any model that matters. A model not listed costs 0 (a local
// server: vLLM, Ollama, llama.cpp).
var listPrices = map[string]Prices{
	"gpt-4o":           {2.50, 10},
	"gpt-4o-mini":      {0.15, 0.60},
	"gpt-4.1":          {2, 8},
	"gpt-4.1-mini":     {0.40, 1.60},
	"gemini-2.5-pro":   {1.25, 10},
	"gemini-2.5-flash": {0.30, 2.50},
}

// PriceOf is a model's list price (listPrices), zero when unknown; a
// provider prefix ("models/", "openai/") is ignored.
func PriceOf(model string) Prices {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	return listPrices[model]
}
