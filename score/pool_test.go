package score

import "testing"

// TestPool: pooling adds the counts and computes F1 as SegmentF1 does,
// so one result pooled alone is itself.
func TestPool(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 2, "a"}, {2, 5, "b"}, {5, 9, "c"}}}
	pred := Segmentation{Segments: []Segment{{0, 2, "a"}, {2, 9, "b"}}}
	one, err := SegmentF1(ref, pred, MatchIoU, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                          string
		in                            []F1
		matches, predicted, reference int
		f1                            float64
	}{
		{"none", nil, 0, 0, 0, 0},
		{"one result is itself", []F1{one}, 1, 2, 3, one.F1},
		// 2*matches/(predicted+reference) of the sums: 2*4/(6+8)
		{"sums", []F1{one, {Matches: 3, Predicted: 4, Reference: 5}}, 4, 6, 8, 8.0 / 14},
	} {
		p := Pool(tc.in...)
		if p.Matches != tc.matches || p.Predicted != tc.predicted || p.Reference != tc.reference || p.F1 != tc.f1 && abs(p.F1-tc.f1) > 1e-12 {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
