package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// Options bounds the store. Zero fields take the documented defaults and
// every other value means something (negative: no limit), so Options has
// no Validate: the user's limits are checked where they are written,
// config's episode.* fields.
type Options struct {
	// MaxBytes of all episodes together. Default 4 GiB. Negative: no limit.
	MaxBytes int64
	// MaxEpisodes kept. Default 10000. Negative: no limit.
	MaxEpisodes int
	// MinFreeBytes is the free-space floor: before an episode begins and
	// after one closes, retention deletes closed episodes (uploaded ones
	// first, oldest first) while the file system has less free space than
	// this, so that the disk does not fill up. Default 256 MiB. Negative:
	// no floor.
	MinFreeBytes int64
	// Now is the wall clock for Manifest.Created. Default time.Now.
	Now func() time.Time
	// Logger reports write failures (the first of each operation) and
	// their end. Default: discard.
	Logger *slog.Logger
	// Fault, for tests, is asked before each write (op is an Op
	// constant); an error fails that write as a full or broken disk
	// would. Default none.
	Fault func(op, path string) error
	// FreeBytes, for tests, replaces the file system's free space
	// (statfs) for the floor. Default statfs.
	FreeBytes func(dir string) (int64, error)
}

// Defaults of Options.
const (
	DefaultMaxBytes    = 4 << 30
	DefaultMaxEpisodes = 10000
	DefaultMinFree     = 256 << 20
)

func (o *Options) defaults() {
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEpisodes == 0 {
		o.MaxEpisodes = DefaultMaxEpisodes
	}
	if o.MinFreeBytes == 0 {
		o.MinFreeBytes = DefaultMinFree
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = discardLogger()
	}
	if o.FreeBytes == nil {
		o.FreeBytes = freeBytes
	}
}

// Store is an open, locked episode store.
type Store struct {
	dir  string
	opts Options
	lock *os.File

	mu        sync.Mutex
	active    *Writer
	recovered []episode.Recovery
	deleted   int
	// clipsDeleted and clipBytesDeleted count the clips retention
	// deleted (retain.go).
	clipsDeleted     int
	clipBytesDeleted int64

	hmu     sync.Mutex        // guards the health fields below
	errors  map[string]uint64 // failed writes per op
	failing map[string]string // op -> its first error, while it fails
	lost    uint64
	free    int64
}

// Open creates dir if needed, locks it for this process, recovers
// episodes left open by a crash and applies retention.
func Open(dir string, o Options) (*Store, error) {
	o.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("episode: create store %s: %w (check data_dir and its permissions)", dir, err)
	}
	lf, err := episode.LockStore(dir, false)
	if err != nil {
		return nil, fmt.Errorf("%w; stop that edged or use another data_dir", err)
	}
	s := &Store{dir: dir, opts: o, lock: lf, errors: map[string]uint64{}, failing: map[string]string{}, free: -1}
	if err := s.recoverAll(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.enforceRetention(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Dir is the store directory.
func (s *Store) Dir() string { return s.dir }

// Recovered reports what Open repaired, one entry per episode touched.
func (s *Store) Recovered() []episode.Recovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]episode.Recovery(nil), s.recovered...)
}

// Deleted counts episodes removed by retention since Open.
func (s *Store) Deleted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleted
}

// Close releases the lock. An open Writer is left as it is on disk: the
// next Open closes it as interrupted (callers close it first).
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close() // closing the descriptor drops the flock
	s.lock = nil
	return err
}

// Begin describes a new episode.
type Begin struct {
	Robot       string
	Name        string    // optional, e.g. an episode id from a recording topic
	Instruction string    // optional
	Start       time.Time // ROS time of its first event
}

// Begin creates the directory and manifest of a new episode. Only one
// episode is open at a time.
func (s *Store) Begin(b Begin) (*Writer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil, fmt.Errorf("episode: store is closed")
	}
	if s.active != nil {
		return nil, fmt.Errorf("episode: %s is still open: close it before beginning another", s.active.m.ID)
	}
	base := episode.NewID(b.Robot, b.Start, b.Name)
	s.makeRoom()
	id := base
	for i := 2; ; i++ {
		err := s.fault(OpMkdir, filepath.Join(s.dir, id))
		if err == nil {
			err = os.Mkdir(filepath.Join(s.dir, id), 0o755)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			err = fmt.Errorf("episode: create %s: %w (disk full? free space in data_dir)", id, err)
			s.note(OpMkdir, err)
			return nil, err
		}
		id = fmt.Sprintf("%s-%d", base, i)
	}
	w := &Writer{store: s, dir: filepath.Join(s.dir, id), m: episode.Manifest{Format: episode.ManifestFormat, ID: id, Robot: b.Robot,
		Name: b.Name, Instruction: b.Instruction, Start: b.Start, Created: s.opts.Now().UTC()}}
	err := fsutil.SyncDir(s.dir)
	s.note(OpMkdir, err)
	if err == nil {
		if err = w.openFiles(); err == nil {
			if err = w.writeManifest(); err != nil {
				w.closeFiles()
			}
		}
	}
	if err != nil {
		// Never leave a directory without a manifest behind: one per
		// attempt leaked while the disk was full.
		_ = os.RemoveAll(w.dir)
		return nil, err
	}
	s.active = w
	return w, nil
}

// MarkUploaded records that the episode reached the cloud, which makes it
// the first candidate for retention.
func (s *Store) MarkUploaded(id string) error {
	return s.mark(id, func(m *episode.Manifest) { m.Uploaded, m.Lacking = true, nil })
}

// maxLackingPieces bounds the pieces a manifest records as lacking.
const maxLackingPieces = 64

// MarkLacking records a receiver's repair request for the episode, at
// now: the pieces it lacks (the first maxLackingPieces; More when it
// listed more, or lacks more than it listed).
func (s *Store) MarkLacking(id string, pieces []string, more bool, now time.Time) error {
	return s.mark(id, func(m *episode.Manifest) {
		if m.Uploaded {
			return
		}
		l := m.Lacking
		if l == nil {
			l = &episode.Lacking{First: now}
			m.Lacking = l
		}
		l.Last, l.Pieces, l.More = now, slices.Clone(pieces[:min(len(pieces), maxLackingPieces)]), more || len(pieces) > maxLackingPieces
	})
}

// MarkRecoveryShipped records that a crash-recovered episode's segments
// and closed manifest are in the outbox, so that the next start does not
// ship them again.
func (s *Store) MarkRecoveryShipped(id string) error {
	return s.mark(id, func(m *episode.Manifest) { m.RecoveryShipped = true })
}

// SetVerdicts records the trace checks' verdicts of a closed episode
// (edged run evaluates them when the episode closes).
func (s *Store) SetVerdicts(id string, v []episode.Verdict) error {
	return s.mark(id, func(m *episode.Manifest) { m.Verdicts = v })
}

// mark rewrites one episode's manifest with set applied.
func (s *Store) mark(id string, set func(*episode.Manifest)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil && s.active.m.ID == id {
		set(&s.active.m)
		return s.active.writeManifest()
	}
	dir := filepath.Join(s.dir, id)
	m, err := episode.ReadManifest(dir)
	if err != nil {
		return err
	}
	set(&m)
	err = s.fault(OpManifest, dir)
	if err == nil {
		err = writeManifest(dir, m)
	}
	s.note(OpManifest, err)
	return err
}

func (s *Store) finished(w *Writer) error {
	s.mu.Lock()
	if s.active == w {
		s.active = nil
	}
	s.mu.Unlock()
	return s.enforceRetention()
}

// makeRoom applies retention (s.mu held) before a write that needs
// space; a failure is noted (Health) and the write tried anyway.
func (s *Store) makeRoom() { _ = s.retainLocked() }

// checkFree asks the file system for the free space (-1 when it cannot
// tell) and keeps the answer for Stats.
func (s *Store) checkFree() int64 {
	n, err := s.opts.FreeBytes(s.dir)
	if err != nil {
		n = -1
	}
	s.hmu.Lock()
	s.free = n
	s.hmu.Unlock()
	return n
}
