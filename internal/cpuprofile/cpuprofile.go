// Package cpuprofile owns the --cpuprofile flag's work for the commands
// that take it (edged run, edged sink): the file is created before the
// command starts, so a path that cannot be written is refused at once,
// and the profile is written when the command stops (a signal included:
// the commands turn SIGTERM into a return). One goroutine calls Start
// and the returned stop; the runtime profiles the whole process.
package cpuprofile

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
)

// Start profiles the process's CPU into path until stop is called; a
// profile that could not be written is logged (the run itself went
// well). An empty path profiles nothing. Errors name --cpuprofile and
// say what to do.
func Start(path string, log *slog.Logger) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w (give a file in a writable directory)", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Error("the CPU profile was not written", "file", path, "err", err)
		}
	}, nil
}
