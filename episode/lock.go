package episode

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockStore takes the flock of store dir's LockFile without waiting:
// exclusive for the one process that writes the store (edged run's
// store, a sink of its own), which then writes its pid into the file;
// shared among sinks sharing the store. Closing the file releases it.
// When another process holds it, the error wraps ErrLocked and names
// the holder's pid when one wrote it; the caller says what to do.
// Readers never lock.
func LockStore(dir string, shared bool) (*os.File, error) {
	lf, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episode: open lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(lf.Fd()), how|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(lf.Name())
		lf.Close()
		holder := ""
		if pid := strings.TrimSpace(string(b)); pid != "" && len(pid) < 16 {
			holder = " (held by pid " + pid + ")"
		}
		return nil, fmt.Errorf("%w: %s%s", ErrLocked, dir, holder)
	}
	if !shared {
		_ = lf.Truncate(0)
		_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return lf, nil
}
