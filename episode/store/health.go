package store

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// Write operations of the store, as counted in Stats.Errors and
// named to Options.Fault.
const (
	OpMkdir    = "mkdir"    // create an episode directory
	OpManifest = "manifest" // write manifest.json
	OpAppend   = "append"   // append a record
	OpSync     = "fsync"    // make records durable
	OpRetain   = "retain"   // delete an episode for retention
)

// Stats are the store's counters, for /metrics.
type Stats struct {
	// Errors counts failed writes per operation (Op constants).
	Errors map[string]uint64
	// Failing lists the operations whose last attempt failed: while it is
	// not empty the store cannot record (Health says why).
	Failing []string
	// SegmentsLost counts closed segments dropped from memory: more than
	// MaxPendingSegments waited, or edged stopped before the store could
	// write them.
	SegmentsLost uint64
	// Deleted counts episodes removed by retention (budgets or the
	// free-space floor).
	Deleted int
	// ClipsDeleted and ClipBytesDeleted count the clips retention
	// deleted, oldest first, before any episode (over MaxBytes or under
	// the floor). The clip stage's own budget (clips.max_bytes) counts
	// its deletions itself.
	ClipsDeleted     int
	ClipBytesDeleted int64
	// FreeBytes on the store's file system at the last check (-1:
	// unknown).
	FreeBytes int64
}

// fault asks Options.Fault whether a write may go ahead.
func (s *Store) fault(op, path string) error {
	if s == nil || s.opts.Fault == nil {
		return nil
	}
	return s.opts.Fault(op, path)
}

// note records the outcome of a write: the first failure of an operation
// is logged (not every one after it), and so is its first success after
// failing.
func (s *Store) note(op string, err error) {
	if s == nil {
		return
	}
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if err == nil {
		if first, ok := s.failing[op]; ok {
			delete(s.failing, op)
			s.opts.Logger.Info("episode store: writing works again", "op", op, "first_error", first)
		}
		return
	}
	s.errors[op]++
	if _, ok := s.failing[op]; !ok {
		s.failing[op] = err.Error()
		s.opts.Logger.Error("episode store: write failed; recording is degraded until it works again "+
			"(closed segments are kept in memory and written then; counted in edged_episode_store_errors_total)",
			"op", op, "dir", s.dir, "err", err)
	}
}

func (s *Store) lostSegments(n int) {
	if s == nil || n == 0 {
		return
	}
	s.hmu.Lock()
	s.lost += uint64(n)
	s.hmu.Unlock()
	s.opts.Logger.Error("episode store: closed segments lost (the store could not write them)", "count", n)
}

// Health is nil while the store can write, else the first error of each
// operation that fails now.
func (s *Store) Health() error {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if len(s.failing) == 0 {
		return nil
	}
	ops := make([]string, 0, len(s.failing))
	for op := range s.failing {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return fmt.Errorf("episode store %s cannot write (%s: %s); free space in data_dir", s.dir, ops[0], s.failing[ops[0]])
}

// Stats returns a snapshot of the counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	deleted, clips, clipBytes := s.deleted, s.clipsDeleted, s.clipBytesDeleted
	s.mu.Unlock()
	s.hmu.Lock()
	defer s.hmu.Unlock()
	st := Stats{Errors: map[string]uint64{}, SegmentsLost: s.lost, Deleted: deleted, FreeBytes: s.free,
		ClipsDeleted: clips, ClipBytesDeleted: clipBytes}
	for op, n := range s.errors {
		st.Errors[op] = n
	}
	for op := range s.failing {
		st.Failing = append(st.Failing, op)
	}
	sort.Strings(st.Failing)
	return st
}

// freeBytes is the space left to unprivileged writers on dir's file
// system.
func freeBytes(dir string) (int64, error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, err
	}
	return int64(fs.Bavail) * int64(fs.Bsize), nil
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// probeName is the file Probe writes in the store directory.
const probeName = ".probe"

// Probe checks, while writes fail, whether the store can write again (a
// small file written, fsynced and removed), so that health recovers
// without waiting for the next record. It makes room first.
func (s *Store) Probe() error {
	if s.Health() == nil {
		return nil
	}
	_ = s.enforceRetention()
	path := filepath.Join(s.dir, probeName)
	err := s.fault(OpAppend, path)
	if err == nil {
		err = fsutil.WriteFileAtomic(path, make([]byte, 4096))
		_ = os.Remove(path)
	}
	if err != nil {
		return err
	}
	s.hmu.Lock()
	ops := make([]string, 0, len(s.failing))
	for op := range s.failing {
		ops = append(ops, op)
	}
	s.hmu.Unlock()
	for _, op := range ops {
		s.note(op, nil)
	}
	return nil
}

// KeepFloor applies retention when the file system has less free space
// than Options.MinFreeBytes (one statfs otherwise): the fsm calls it every
// second, so a long episode does not run the disk full between begins.
func (s *Store) KeepFloor() {
	if s.opts.MinFreeBytes < 0 {
		return
	}
	if free := s.checkFree(); free < 0 || free >= s.opts.MinFreeBytes {
		return
	}
	_ = s.enforceRetention()
}
