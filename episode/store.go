package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// File names inside the store and an episode directory.
const (
	lockName        = ".lock"
	manifestName    = "manifest.json"
	segmentsName    = "segments.rec"
	transitionsName = "transitions.rec"
	quarantineName  = "quarantine"
	maxManifest     = 1 << 20
)

// Options bounds the store. Zero fields take the documented defaults.
type Options struct {
	// MaxBytes of all episodes together. Default 4 GiB. Negative: no limit.
	MaxBytes int64
	// MaxEpisodes kept. Default 10000. Negative: no limit.
	MaxEpisodes int
	// Now is the wall clock for Manifest.Created. Default time.Now.
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultMaxBytes    = 4 << 30
	DefaultMaxEpisodes = 10000
)

// Validate checks the options without I/O.
func (o Options) Validate() error {
	return nil // every value is meaningful: 0 default, negative unlimited
}

func (o *Options) defaults() {
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEpisodes == 0 {
		o.MaxEpisodes = DefaultMaxEpisodes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ErrLocked is returned by Open when another process writes the store.
var ErrLocked = errors.New("episode store is locked by another process")

// Store is an open, locked episode store.
type Store struct {
	dir  string
	opts Options
	lock *os.File

	mu        sync.Mutex
	active    *Writer
	recovered []Recovery
	deleted   int
}

// Open creates dir if needed, locks it for this process, recovers
// episodes left open by a crash and applies retention.
func Open(dir string, o Options) (*Store, error) {
	o.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("episode: create store %s: %w (check data_dir and its permissions)", dir, err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episode: open lock file: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(lf.Name())
		lf.Close()
		return nil, fmt.Errorf("%w: %s (held by pid %s; stop that edged or use another data_dir)",
			ErrLocked, dir, strings.TrimSpace(string(b)))
	}
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	s := &Store{dir: dir, opts: o, lock: lf}
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
func (s *Store) Recovered() []Recovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recovery(nil), s.recovered...)
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

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

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
	base := NewID(b.Robot, b.Start, b.Name)
	id := base
	for i := 2; ; i++ {
		err := os.Mkdir(filepath.Join(s.dir, id), 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return nil, fmt.Errorf("episode: create %s: %w", id, err)
		}
		id = fmt.Sprintf("%s-%d", base, i)
	}
	if err := fsutil.SyncDir(s.dir); err != nil {
		return nil, err
	}
	w := &Writer{store: s, dir: filepath.Join(s.dir, id), m: Manifest{Format: ManifestFormat, ID: id, Robot: b.Robot,
		Name: b.Name, Instruction: b.Instruction, Start: b.Start, Created: s.opts.Now().UTC()}}
	if err := w.openFiles(); err != nil {
		return nil, err
	}
	if err := w.writeManifest(); err != nil {
		w.closeFiles()
		return nil, err
	}
	s.active = w
	return w, nil
}

// MarkUploaded records that the episode reached the cloud, which makes it
// the first candidate for retention.
func (s *Store) MarkUploaded(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil && s.active.m.ID == id {
		s.active.m.Uploaded = true
		return s.active.writeManifest()
	}
	dir := filepath.Join(s.dir, id)
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	m.Uploaded = true
	return writeManifest(dir, m)
}

func (s *Store) finished(w *Writer) error {
	s.mu.Lock()
	if s.active == w {
		s.active = nil
	}
	s.mu.Unlock()
	return s.enforceRetention()
}

// enforceRetention deletes closed episodes beyond the budgets: uploaded
// ones oldest first, then the others oldest first.
func (s *Store) enforceRetention() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	infos, err := List(s.dir)
	if err != nil {
		return err
	}
	type cand struct {
		m     Manifest
		bytes int64
	}
	var all []cand
	var total int64
	for _, m := range infos {
		n := dirBytes(filepath.Join(s.dir, m.ID))
		total += n
		if m.Closed && (s.active == nil || s.active.m.ID != m.ID) {
			all = append(all, cand{m, n})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].m.Uploaded != all[j].m.Uploaded {
			return all[i].m.Uploaded
		}
		return all[i].m.Start.Before(all[j].m.Start)
	})
	count := len(infos)
	for _, c := range all {
		overBytes := s.opts.MaxBytes >= 0 && total > s.opts.MaxBytes
		overCount := s.opts.MaxEpisodes >= 0 && count > s.opts.MaxEpisodes
		if !overBytes && !overCount {
			break
		}
		if err := os.RemoveAll(filepath.Join(s.dir, c.m.ID)); err != nil {
			return fmt.Errorf("episode: retention: delete %s: %w", c.m.ID, err)
		}
		total -= c.bytes
		count--
		s.deleted++
	}
	return nil
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := fsutil.ReadFileCapped(filepath.Join(dir, manifestName), maxManifest)
	if err != nil {
		return m, fmt.Errorf("episode: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("episode: %s: corrupt manifest: %w", dir, err)
	}
	if m.Format != ManifestFormat {
		return m, fmt.Errorf("episode: %s: manifest format %d, this edged reads %d", dir, m.Format, ManifestFormat)
	}
	return m, nil
}

func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("episode: manifest: %w", err)
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, manifestName), append(b, '\n'))
}
