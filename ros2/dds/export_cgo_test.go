//go:build cgo && !purego

package dds

import "sync"

// PauseReaders holds every subscription's reader goroutine before its
// next take until resume is called (once or more): a reader falling behind, on demand.
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
