package loglimit

import "testing"

// The first line passes, the next ones within Every are counted.
func TestAllow(t *testing.T) {
	var l Limiter
	if ok, n := l.Allow(); !ok || n != 0 {
		t.Fatalf("first: %v %d", ok, n)
	}
	for range 3 {
		if ok, _ := l.Allow(); ok {
			t.Fatal("a repeat within Every passed")
		}
	}
	if l.suppressed != 3 {
		t.Fatalf("suppressed %d, want 3", l.suppressed)
	}
	l.last = l.last.Add(-Every)
	if ok, n := l.Allow(); !ok || n != 3 {
		t.Fatalf("after Every: %v %d, want true 3", ok, n)
	}
}
