package score

import "math"

// Pair is one intersecting pair (S[I], T[J]) of the SIMILARITY algorithm.
type Pair struct {
	I   int     `json:"i"`
	J   int     `json:"j"`
	IoU float64 `json:"iou"`
	CS  float64 `json:"cs"`
	W   float64 `json:"w"`
}

// Similarity is the result of the SIMILARITY algorithm.
type Similarity struct {
	TauK    float64 `json:"tau_k"`
	TauZeta float64 `json:"tau_zeta"`
	Encoder string  `json:"encoder"`
	// L is the trajectory length the weights are divided by.
	L     float64 `json:"l"`
	Pairs []Pair  `json:"pairs"`
}

// Similar computes tau_k and tau_zeta of S and T (SCORING.md section 1)
// with enc encoding the labels. Both must be valid and in the same unit.
// The result is symmetric: Similar(S, T) and Similar(T, S) agree (with
// I and J swapped in Pairs).
func Similar(s, t Segmentation, enc Encoder) (Similarity, error) {
	if err := sameUnit(s, t); err != nil {
		return Similarity{}, err
	}
	res := Similarity{Encoder: enc.Name(), L: math.Max(s.lastEnd(), t.lastEnd())}
	plus := 0.0
	if s.Unit == Steps {
		plus = 1
		res.L++
	}
	cache := encodeAll(enc, s, t)
	embed := func(l string) []float64 {
		v, ok := cache[l]
		if !ok {
			v = enc.Encode(l)
			cache[l] = v
		}
		return v
	}
	var sumW, sumIoU, sumCS float64
	for i, a := range s.Segments {
		for j, b := range t.Segments {
			if a.Start > b.End || b.Start > a.End {
				continue
			}
			p := Pair{I: i, J: j, IoU: IoU(a, b)}
			if a.Label == b.Label {
				p.CS = 1
			} else {
				p.CS = CosineSimilarity(embed(a.Label), embed(b.Label))
			}
			if res.L > 0 {
				p.W = (math.Min(a.End, b.End) - math.Max(a.Start, b.Start) + plus) / res.L
			}
			res.Pairs = append(res.Pairs, p)
			sumW += p.W
			sumIoU += p.IoU * p.W
			sumCS += p.CS * p.W
		}
	}
	if sumW > 0 {
		res.TauK = sumIoU / sumW
		res.TauZeta = sumCS / sumW
	}
	return res, nil
}

// encodeAll encodes the distinct labels of s and t at once when enc is a
// BatchEncoder (an empty map otherwise: labels are encoded when needed).
func encodeAll(enc Encoder, s, t Segmentation) map[string][]float64 {
	cache := map[string][]float64{}
	b, ok := enc.(BatchEncoder)
	if !ok {
		return cache
	}
	var labels []string
	seen := map[string]bool{}
	for _, g := range append(append([]Segment(nil), s.Segments...), t.Segments...) {
		if !seen[g.Label] {
			seen[g.Label] = true
			labels = append(labels, g.Label)
		}
	}
	for i, v := range b.EncodeAll(labels) {
		if i < len(labels) {
			cache[labels[i]] = v
		}
	}
	return cache
}

func sameUnit(s, t Segmentation) error {
	if s.Unit != t.Unit {
		return &InvalidError{Index: -1, Reason: "one segmentation is in " + s.Unit.String() + ", the other in " +
			t.Unit.String() + ": give a step rate to convert steps to seconds"}
	}
	return nil
}
