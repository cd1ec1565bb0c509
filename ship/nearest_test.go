package ship

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
)

// TestNearestSearchAgreesWithScan: on stamps that never go back (with
// repeats and gaps), the binary search picks the very sample the scan
// does, ties included (the first of the equally near ones).
func TestNearestSearchAgreesWithScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name  string
		n     int
		steps []time.Duration // stamp increments drawn from
	}{
		{"regular", 50, []time.Duration{10 * time.Millisecond}},
		{"repeats", 50, []time.Duration{0, 0, 10 * time.Millisecond}},
		{"gaps", 50, []time.Duration{time.Millisecond, 3 * time.Second}},
		{"one", 1, []time.Duration{0}},
		{"none", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var samples []capture.JointSample
			var at []int32
			stamp := t0
			for i := range c.n {
				stamp = stamp.Add(c.steps[rng.IntN(len(c.steps))])
				samples = append(samples, capture.JointSample{Topic: "/j", Stamp: stamp, Position: []float64{float64(i)}})
				at = append(at, int32(i))
			}
			for range 2000 {
				q := t0.Add(time.Duration(rng.Int64N(int64(stamp.Sub(t0)+4*time.Second))) - 2*time.Second)
				q = q.Truncate(5 * time.Millisecond) // lands on stamps and midpoints too
				got, gotOK := nearest(samples, at, true, q, time.Second)
				want, wantOK := nearestScan(samples, at, q, time.Second)
				if gotOK != wantOK || (gotOK && got.Position[0] != want.Position[0]) {
					t.Fatalf("at %v: search %v %v, scan %v %v", q.Sub(t0), got.Position, gotOK, want.Position, wantOK)
				}
			}
		})
	}
}
