package score

import (
	"math"
	"strings"
	"unicode"
)

// Encoder turns a label into a vector; CosineSimilarity compares two.
// Implementations must be deterministic and safe for concurrent use.
type Encoder interface {
	// Name identifies the encoder in reports (tau_zeta depends on it).
	Name() string
	// Encode returns the label's embedding. All vectors of one encoder
	// have the same length.
	Encode(label string) []float64
}

// BatchEncoder is an Encoder that encodes many labels at once more
// cheaply than one by one (an embeddings API: one request per batch).
// Similar gives it every distinct label of both segmentations before it
// asks for any one, so Encode then finds them ready.
type BatchEncoder interface {
	Encoder
	EncodeAll(labels []string) [][]float64
}

// hashedDims is the embedding size of HashedNGram: large enough that
// the handful of features of a short label rarely collide.
const hashedDims = 4096

// HashedNGram returns the built-in offline encoder: a hashed
// bag-of-features embedding of the lowercased label, with one feature
// per word (weight 2) and per character 3-gram and 4-gram of each word
// padded with spaces (weight 1), hashed (FNV-1a) into 4096 dimensions.
// Labels like "lift_and_carry" and "lift and carry" encode alike, and
// words sharing a stem ("grasp", "grasping") are close. It needs no
// model download.
func HashedNGram() Encoder { return hashedNGram{} }

type hashedNGram struct{}

func (hashedNGram) Name() string {
	return "hashed-ngram-v1 (offline: hashed character 3/4-gram + word bag-of-features, 4096 dims, cosine similarity)"
}

func (hashedNGram) Encode(label string) []float64 {
	v := make([]float64, hashedDims)
	for _, w := range words(label) {
		v[fnv("w:"+w)%hashedDims] += 2
		p := []rune(" " + w + " ")
		for n := 3; n <= 4; n++ {
			for i := 0; i+n <= len(p); i++ {
				v[fnv(string(p[i:i+n]))%hashedDims]++
			}
		}
	}
	return v
}

// words splits a label into lowercase words on anything that is not a
// letter or a digit (so snake_case, kebab-case and paths split too).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func fnv(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// CosineSimilarity of two vectors, in [-1, 1]. Two zero vectors (two
// empty labels) are identical, 1; one zero vector against another is 0.
func CosineSimilarity(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		if i >= len(b) {
			break
		}
		dot += a[i] * b[i]
	}
	for _, x := range a {
		na += x * x
	}
	for _, x := range b {
		nb += x * x
	}
	switch {
	case na == 0 && nb == 0:
		return 1
	case na == 0 || nb == 0:
		return 0
	}
	c := dot / math.Sqrt(na*nb)
	return math.Max(-1, math.Min(1, c))
}
