//go:build cgo && !purego

package dds

import "sync"

// PauseReaders holds every participant's pump before its next take of a
// subscription's samples until resume is called (once or more): a reader
// falling behind, on demand. While paused, the graph is not followed and
// closing a subscription that has data waits for resume.
func PauseReaders() (resume func()) {
	ch := make(chan struct{})
	h := func() { <-ch }
	takeHook.Store(&h)
	var once sync.Once
	return func() {
		once.Do(func() {
			takeHook.Store(nil)
			close(ch)
		})
	}
}

// SampleBufferStats reports the large-sample buffers allocated fresh and
// reused so far, process-wide (bufpool.c).
func SampleBufferStats() (fresh, reused uint64) { return sampleBufferStats() }
