package main

import (
	"math"
	"testing"
	"time"
)

// TestSustained: the rate is taken over the middle of the work, so an
// idle start and end do not lower it, and each sink's share is its own.
func TestSustained(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64, handled ...float64) sample {
		return sample{at: t0.Add(time.Duration(s * float64(time.Second))), handled: handled}
	}
	tests := []struct {
		name    string
		samples []sample
		rate    float64
		perSink []float64
		ok      bool
	}{
		{"idle start and end", []sample{at(0, 0), at(10, 0), at(11, 100), at(12, 200), at(13, 300), at(14, 400), at(15, 500),
			at(16, 600), at(17, 700), at(18, 800), at(19, 900), at(20, 1000), at(40, 1000)}, 100, []float64{100}, true},
		{"one sink finishes first", []sample{at(0, 0, 0), at(1, 100, 50), at(2, 200, 100), at(3, 200, 150), at(4, 200, 200)},
			100, []float64{50, 50}, true},
		{"no work", []sample{at(0, 0), at(1, 0)}, 0, nil, false},
		{"one sample", []sample{at(0, 5)}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, per, ok := sustained(tt.samples, 0.1, 0.9)
			if ok != tt.ok || math.Abs(rate-tt.rate) > 1e-9 || len(per) != len(tt.perSink) {
				t.Fatalf("got %v %v %v, want %v %v %v", rate, per, ok, tt.rate, tt.perSink, tt.ok)
			}
			for i := range per {
				if math.Abs(per[i]-tt.perSink[i]) > 1e-9 {
					t.Fatalf("sink %d: %v, want %v", i, per[i], tt.perSink[i])
				}
			}
		})
	}
}
