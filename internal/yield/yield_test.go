package yield

import (
	"testing"
	"time"
)

// Maybe yields at most every Every: the first call yields (a zero
// Yielder has never yielded), calls within Every of it do not, and
// Yielded counts as a yield.
func TestMaybeYieldsAtMostEvery(t *testing.T) {
	var y Yielder
	y.Maybe()
	first := y.last
	if first.IsZero() {
		t.Fatal("the first Maybe did not yield")
	}
	y.Maybe()
	if !y.last.Equal(first) && y.last.Sub(first) < Every {
		t.Fatalf("yielded again after %v, want >= %v", y.last.Sub(first), Every)
	}
	y.last = time.Now().Add(-Every)
	y.Maybe()
	if time.Since(y.last) >= Every {
		t.Fatal("Maybe did not yield once Every had passed")
	}
	y.last = time.Time{}
	y.Yielded()
	if y.last.IsZero() {
		t.Fatal("Yielded did not record the yield")
	}
}
