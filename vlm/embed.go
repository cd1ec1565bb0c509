package vlm

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
)

// Bounds of an embeddings request and answer.
const (
	// MaxEmbedBatch is the API's limit on the inputs of one request.
	MaxEmbedBatch = 2048
	// MaxEmbedDims caps the length of one vector an answer may hold.
	MaxEmbedDims = 1 << 16
)

// Embeddings is the answer of one Embed: a vector per text, in order.
type Embeddings struct {
	Vectors [][]float64
	// Usage is the API's token count, added over the requests.
	Usage Usage
	// Requests made (one per batch) and HTTP attempts, retries included.
	Requests, Attempts int
}

// ErrEmptyText: the API refuses to embed an empty string.
var ErrEmptyText = errors.New("vlm: cannot embed an empty text")

// Embed returns the embeddings of texts by Config.Model, asking for at
// most Config.EmbedBatch texts per request (float encoding), one batch
// after the other, each in a concurrency slot with the retries Complete
// has. Every text must be non-empty. An answer with a vector missing,
// repeated, empty, over MaxEmbedDims or of another length than the
// others is an error.
func (c *Client) Embed(ctx context.Context, texts []string) (Embeddings, error) {
	out := Embeddings{Vectors: make([][]float64, 0, len(texts))}
	for i, t := range texts {
		if t == "" {
			return out, fmt.Errorf("%w (text %d)", ErrEmptyText, i)
		}
	}
	for lo := 0; lo < len(texts); lo += c.cfg.EmbedBatch {
		batch := texts[lo:min(lo+c.cfg.EmbedBatch, len(texts))]
		var res *openai.CreateEmbeddingResponse
		resp, err := c.send(ctx, func(actx context.Context) (err error) {
			res, err = c.oc.Embeddings.New(actx, openai.EmbeddingNewParams{
				Model:          openai.EmbeddingModel(c.cfg.Model),
				Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
				EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
			})
			return err
		})
		out.Requests++
		out.Attempts += resp.Attempts
		if err != nil {
			return out, err
		}
		vs, err := vectors(res, len(batch))
		if err != nil {
			return out, fmt.Errorf("vlm: embeddings of %s from %s: %w", c.cfg.Model, c.where(), err)
		}
		if len(out.Vectors) > 0 && len(vs[0]) != len(out.Vectors[0]) {
			return out, fmt.Errorf("vlm: embeddings of %s from %s: vectors of %d then %d dimensions", c.cfg.Model, c.where(), len(out.Vectors[0]), len(vs[0]))
		}
		out.Vectors = append(out.Vectors, vs...)
		out.Usage.Prompt += res.Usage.PromptTokens
	}
	return out, nil
}

// vectors puts an answer's vectors in the order of the n inputs.
func vectors(res *openai.CreateEmbeddingResponse, n int) ([][]float64, error) {
	if len(res.Data) != n {
		return nil, fmt.Errorf("%d vectors for %d texts", len(res.Data), n)
	}
	out := make([][]float64, n)
	for _, d := range res.Data {
		switch {
		case d.Index < 0 || d.Index >= int64(n):
			return nil, fmt.Errorf("vector index %d out of range [0, %d)", d.Index, n)
		case out[d.Index] != nil:
			return nil, fmt.Errorf("vector index %d repeated", d.Index)
		case len(d.Embedding) == 0 || len(d.Embedding) > MaxEmbedDims:
			return nil, fmt.Errorf("vector %d has %d dimensions (want 1 to %d)", d.Index, len(d.Embedding), MaxEmbedDims)
		case len(d.Embedding) != len(res.Data[0].Embedding):
			return nil, fmt.Errorf("vectors of %d and %d dimensions in one answer", len(res.Data[0].Embedding), len(d.Embedding))
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
