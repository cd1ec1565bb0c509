//go:build cgo && !purego

package dds

import "testing"

// A buffer's class: powers of two from 64 KiB up to what the pool can
// keep idle (32 MiB); larger buffers are allocated at their size (a
// 33 MiB sample took 64 MiB, a 1 GiB one 2 GiB).
func TestBufClass(t *testing.T) {
	const kib, mib = 1 << 10, 1 << 20
	for _, c := range []struct {
		size, want int
	}{
		{0, -1},
		{64*kib - 1, -1},
		{64 * kib, 0},
		{64*kib + 1, 1},
		{3 * mib, 6},
		{32 * mib, 9},
		{32*mib + 1, -1},
		{maxMessageBytes + 64, -1},
	} {
		if got := bufClass(c.size); got != c.want {
			t.Errorf("class of %d bytes = %d, want %d", c.size, got, c.want)
		}
	}
}

// An idle buffer of a class no longer received (one 17 MiB sample, a
// closed camera) does not keep the pool from keeping the buffers being
// received now: it held the whole 32 MiB budget, and every later buffer
// was freed and malloc'd afresh.
func TestBufPoolEvictsStaleClass(t *testing.T) {
	bufDrain()
	t.Cleanup(bufDrain)
	big, bigClass := bufGet(17 << 20)
	bufPut(big, bigClass) // idle: the whole budget
	for i := range 3 {
		_, reused0 := sampleBufferStats()
		p, class := bufGet(600 << 10)
		_, reused1 := sampleBufferStats()
		bufPut(p, class)
		if got := reused1 - reused0; i > 0 && got != 1 {
			t.Fatalf("get %d of a 600 KiB buffer after a 17 MiB one went idle: %d reused, want 1", i, got)
		}
	}
}

// A sample given fewer bytes than its size is refused (in a pooled
// buffer the rest would be a previous sample's) and counted in
// Stats().Errors, not lost silently.
func TestShortSampleRefusedAndCounted(t *testing.T) {
	for _, c := range []struct {
		have, size  int
		wantBuilt   bool
		wantRefused uint32
	}{
		{300 << 10, 300 << 10, true, 0},
		{100 << 10, 300 << 10, false, 1},
		{4, 8, false, 1},
	} {
		built, refused := fromShortIOV(c.have, c.size)
		if built != c.wantBuilt || refused != c.wantRefused {
			t.Errorf("%d of %d bytes: built %v, %d refused; want %v, %d", c.have, c.size, built, refused, c.wantBuilt, c.wantRefused)
		}
	}
}
