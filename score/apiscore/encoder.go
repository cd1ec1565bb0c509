package apiscore

import (
	"context"
	"fmt"
	"sync"

	"github.com/edged-robotics/edged/vlm"
)

// maxCached bounds the labels an Encoder keeps (a vector of a few
// thousand float64s each).
const maxCached = 8192

// Encoder encodes labels with an embedding model (a score.BatchEncoder).
type Encoder struct {
	ctx context.Context
	cl  *vlm.Client

	mu    sync.Mutex
	cache map[string][]float64
	err   error
}

// NewEncoder encodes with cl's model; ctx bounds every request.
func NewEncoder(ctx context.Context, cl *vlm.Client) *Encoder {
	return &Encoder{ctx: ctx, cl: cl, cache: map[string][]float64{}}
}

// Name implements score.Encoder: the model, and how it is reached.
func (e *Encoder) Name() string {
	return "api-embedding " + e.cl.Model() + " (embedding model over the OpenAI-compatible API, cosine similarity)"
}

// Encode implements score.Encoder.
func (e *Encoder) Encode(label string) []float64 { return e.EncodeAll([]string{label})[0] }

// EncodeAll implements score.BatchEncoder: the labels not known yet are
// asked for in one Embed. An empty label is the zero vector (the API
// refuses to embed ""); after a failure (Err) vectors not known are
// empty too.
func (e *Encoder) EncodeAll(labels []string) [][]float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	missing := e.missing(labels)
	if len(e.cache)+len(missing) > maxCached {
		e.cache = map[string][]float64{}
		missing = e.missing(labels)
	}
	if len(missing) > 0 && e.err == nil {
		res, err := e.cl.Embed(e.ctx, missing)
		if err != nil {
			e.err = fmt.Errorf("apiscore: embeddings of labels for tau_zeta (--embed-model %s): %w", e.cl.Model(), err)
		} else {
			for i, l := range missing {
				e.cache[l] = res.Vectors[i]
			}
		}
	}
	out := make([][]float64, len(labels))
	for i, l := range labels {
		out[i] = e.cache[l]
	}
	return out
}

// missing are the distinct non-empty labels not in the cache.
func (e *Encoder) missing(labels []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range labels {
		if _, ok := e.cache[l]; !ok && l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// Err is the first failure, nil when every label was encoded.
func (e *Encoder) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
