//go:build linux

package clip

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerWriterPriority locks the calling goroutine to its OS thread for
// good and lowers that thread's scheduling priority by writerNice (to
// 19 at most). On Linux a nice value belongs to one thread, so only the
// clip writer's thread yields to capture's. The caller must never
// unlock: a goroutine that exits locked takes its thread with it, so a
// lowered thread never goes back to run other goroutines. Threads the
// runtime starts meanwhile do not inherit it (Go clones them from its
// template thread while a goroutine is locked).
func lowerWriterPriority() (nice int, err error) {
	runtime.LockOSThread()
	tid := unix.Gettid()
	// the raw syscall gives 20 - nice (1..40)
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, fmt.Errorf("clip: the writer thread's priority: getpriority: %w", err)
	}
	nice = min(20-prio+writerNice, 19)
	if err := unix.Setpriority(unix.PRIO_PROCESS, tid, nice); err != nil {
		return 0, fmt.Errorf("clip: lowering the writer thread's priority to nice %d: setpriority: %w", nice, err)
	}
	return nice, nil
}
