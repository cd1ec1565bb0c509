// Package yield keeps a goroutine that works or blocks in C for long
// stretches from looking, to the Go scheduler, as if it ran without end.
//
// The runtime's monitor thread (sysmon) preempts a goroutine that has run
// 10 ms on one scheduling tick; inside a long cgo call (a TurboJPEG
// decode, a Cyclone DDS waitset wait) it cannot, so it takes the
// goroutine's P away and hands it on, and each time it does it goes back
// to waking every 20 us. A loop that renders tile after tile or that
// waits in C for message after message thus kept the monitor polling:
// perf had it at 3% of a sheet loop's CPU and ~20% of the ROS 2 ingest's,
// with 4x the context switches. A yield now and then (runtime.Gosched:
// a new scheduling tick) is cheaper than that, but not free: it wakes an
// idle thread (a futex call or two), so a Yielder yields at most every
// Every, not on every call.
//
// A Yielder is used by one goroutine at a time (its own, or under the
// owner's lock); its zero value is ready.
package yield

import (
	"runtime"
	"time"
)

// Every is how long a Yielder lets its goroutine go without a yield:
// well under the runtime's 10 ms, with room for one more ~2 ms unit of
// work (a tile) before the next call.
const Every = 4 * time.Millisecond

// Yielder yields its goroutine's thread once Every has passed since the
// last time.
type Yielder struct{ last time.Time }

// Maybe yields if Every has passed since the last yield.
func (y *Yielder) Maybe() {
	if now := time.Now(); now.Sub(y.last) >= Every {
		runtime.Gosched()
		y.last = now
	}
}

// Yielded records a yield the caller made itself (a runtime.Gosched for
// its own reasons), so Maybe does not yield again too soon.
func (y *Yielder) Yielded() { y.last = time.Now() }
