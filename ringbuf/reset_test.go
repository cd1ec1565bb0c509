package ringbuf

import (
	"testing"
	"time"
)

// TestClockReset: a frame stamped further back than MaxAge before the
// newest (a looped bag, a restarted simulator) starts the ring over:
// before, the old newest stamp evicted every new frame as too old, so
// the second loop's sheets had at most one frame to choose from.
func TestClockReset(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 1 << 20, MaxAge: time.Second, MaxFrames: 64})
	for i := 0; i < 30; i++ { // 0..2.9 s
		put(t, r, i, i*100, 10)
	}
	for i := 0; i < 5; i++ { // the loop starts again at 0
		put(t, r, 100+i, i*100, 10)
	}
	s := r.Stats()
	if s.Resets != 1 || s.Frames != 5 || ms(Meta{Stamp: s.Oldest}) != 0 || ms(Meta{Stamp: s.Newest}) != 400 {
		t.Fatalf("after the jump: %+v; want 5 frames 0-400 ms and one reset", s)
	}
	if m, _, ok := r.Nearest(t0.Add(200*time.Millisecond), 50*time.Millisecond, nil); !ok || m.Seq != 33 {
		t.Fatalf("nearest 200 ms: %+v %v; want the second loop's frame", m, ok)
	}
	// Out of order within MaxAge is no reset.
	put(t, r, 200, 100, 10)
	if s := r.Stats(); s.Resets != 1 || s.Frames != 6 {
		t.Fatalf("late frame within max age: %+v", s)
	}
}
