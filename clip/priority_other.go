//go:build !linux

package clip

import (
	"errors"
	"runtime"
)

// lowerWriterPriority locks the calling goroutine to its OS thread as
// on Linux, but lowers no priority: elsewhere a nice value is the whole
// process's (the caller logs why).
func lowerWriterPriority() (int, error) {
	runtime.LockOSThread()
	return 0, errors.New("clip: the writer thread's priority is lowered on Linux only (a nice value is per thread there); clips are written at capture's priority")
}
