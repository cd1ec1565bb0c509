package ringbuf

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/fielderr"
)

// Defaults of Config (used for zero fields), and of the config file's
// ring section (package config takes them from here).
const (
	// DefaultMaxBytes holds about 40 s of 720p JPEG at 30 fps (~100 KB
	// frames) or 9 s of raw rgb8 720p.
	DefaultMaxBytes = 256 << 20
	// DefaultMaxAge is long enough for a sheet tick's window plus grace
	// many times over (a busy moment, a late frame of a slow camera).
	DefaultMaxAge = 30 * time.Second
	// DefaultMaxFrames bounds the index: 10 s at 100 fps.
	DefaultMaxFrames = 1024
)

// ErrTooLarge is returned by Put for a frame larger than the whole arena.
var ErrTooLarge = errors.New("ringbuf: frame larger than the ring")

// ErrClosed is returned by Put on a closed ring.
var ErrClosed = errors.New("ringbuf: ring closed")

// MinBytes is the smallest ring (MaxBytes): a few frames of a 720p
// JPEG camera; a smaller ring drops every frame of most cameras.
const MinBytes = 1 << 20

// Config bounds one ring. Zero fields take the defaults above. The
// config file's ring section maps onto it, so Validate's errors name
// that section's keys (ring.max_bytes): this package owns those rules,
// `edged config check` and `edged run` both apply them (daemon.Check).
type Config struct {
	MaxBytes  int           // arena size in bytes (default 256 MiB, at least MinBytes)
	MaxAge    time.Duration // keep frames at most this much older than the newest (default 30 s)
	MaxFrames int           // index size: most frames held at once (default 1024)
}

// WithDefaults returns c with zero fields set to the defaults.
func (c Config) WithDefaults() Config {
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.MaxFrames == 0 {
		c.MaxFrames = DefaultMaxFrames
	}
	return c
}

// Validate reports the first invalid field, a *fielderr.Error naming
// its config key (so a command may rename it to a flag). A
// zero field is invalid here: New (and the config file's defaults) fill
// zeros in before validating, so a 0 written in the file is refused
// rather than silently taking a default.
func (c Config) Validate() error {
	switch {
	case c.MaxBytes < MinBytes:
		return fielderr.New("ring.max_bytes", "must be >= 1MiB (%d bytes; default %d), got %d", MinBytes, DefaultMaxBytes, c.MaxBytes)
	case c.MaxAge <= 0:
		return fielderr.New("ring.max_age", "must be > 0 (default %s), got %s", DefaultMaxAge, c.MaxAge)
	case c.MaxFrames <= 0:
		return fielderr.New("ring.max_frames", "must be > 0 (default %d), got %d", DefaultMaxFrames, c.MaxFrames)
	}
	return nil
}

// Meta describes one stored frame (everything of capture.Frame but Data).
type Meta struct {
	Seq         uint64 // 1, 2, ... in arrival order; identifies the frame for Copy
	Topic       string
	Stamp       time.Time
	Received    time.Time
	StampSource capture.StampSource
	Format      capture.FrameFormat
	Encoding    string
	FrameID     string // header.frame_id (capture caps its length)
	Width       int
	Height      int
	Step        int
	BigEndian   bool
	Size        int // len(Data)
}

type entry struct {
	meta Meta
	off  int // offset of the data in the arena
}

// Stats is a snapshot of a ring's metrics.
type Stats struct {
	Frames       int           // frames held now
	FillBytes    int           // bytes of frame data held now
	CapBytes     int           // arena size
	Put          uint64        // frames stored since New
	Overwritten  uint64        // frames evicted to make room (bytes, count or age)
	TooLarge     uint64        // frames refused by Put
	Resets       uint64        // clock resets: a frame older than MaxAge before the newest emptied the ring
	TouchedBytes int           // the arena's high-water mark: the most of it ever written (resident memory)
	Oldest       time.Time     // smallest stamp held (zero when empty)
	Newest       time.Time     // largest stamp held
	Span         time.Duration // Newest - Oldest
}

// Ring is a bounded buffer of recent frames of one camera. See the package
// documentation for ownership and concurrency.
type Ring struct {
	cfg Config

	mu      sync.Mutex
	arena   []byte // nil once closed
	free    func() // releases the arena
	closed  bool
	idx     []entry // circular; head is the oldest
	head, n int
	wpos    int    // next write offset in the arena
	runSeq  uint64 // Seq of the first frame of the newest run (anyOverlap)
	seq     uint64
	newest  time.Time
	stats   Stats
}

// New returns a ring with its arena and index preallocated.
func New(cfg Config) (*Ring, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newRing(cfg), nil
}

// newRing builds a ring of a validated cfg (the package's tests also
// build rings of a few bytes with it, to see eviction at small scale).
func newRing(cfg Config) *Ring {
	arena, free := allocArena(cfg.MaxBytes)
	return &Ring{
		cfg:   cfg,
		arena: arena,
		free:  free,
		idx:   make([]entry, cfg.MaxFrames),
	}
}

// Close releases the arena. Afterwards Put returns ErrClosed and the
// lookups find nothing; copies readers already made stay valid (they are
// the readers' own). Safe to call more than once.
func (r *Ring) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	r.n, r.head = 0, 0
	r.arena = nil
	r.free()
}

// Config returns the ring's bounds (defaults applied).
func (r *Ring) Config() Config { return r.cfg }

// Put copies f (Data included) into the ring, overwriting the oldest
// frames as needed. It returns ErrTooLarge (counted) for a frame bigger
// than the arena. The caller keeps ownership of f and must Release it.
func (r *Ring) Put(f *capture.Frame) error {
	size := len(f.Data)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if size > len(r.arena) {
		r.stats.TooLarge++
		return fmt.Errorf("%w: %d bytes, ring holds %d (raise max_bytes)", ErrTooLarge, size, len(r.arena))
	}
	if r.n > 0 && f.Stamp.Before(r.newest.Add(-r.cfg.MaxAge)) {
		r.reset()
	}
	off := r.place(size)
	r.evictOverlapping(off, size)
	if off != r.wpos {
		r.runSeq = r.seq + 1 // a new run begins at the start of the arena
	}
	if r.n == len(r.idx) {
		r.evictOldest()
	}
	copy(r.arena[off:off+size], f.Data)
	r.seq++
	e := &r.idx[(r.head+r.n)%len(r.idx)]
	*e = entry{off: off, meta: Meta{
		Seq: r.seq, Topic: f.Topic, Stamp: f.Stamp, Received: f.Received, StampSource: f.StampSource,
		Format: f.Format, Encoding: f.Encoding, FrameID: f.FrameID, Width: f.Width, Height: f.Height, Step: f.Step,
		BigEndian: f.BigEndian, Size: size,
	}}
	r.n++
	r.wpos = off + size
	r.stats.TouchedBytes = max(r.stats.TouchedBytes, r.wpos)
	r.stats.Put++
	r.stats.FillBytes += size
	if f.Stamp.After(r.newest) {
		r.newest = f.Stamp
	}
	r.evictOld()
	return nil
}

// place returns the arena offset for the next frame of size bytes: the
// write position, or the start of the arena when the frame does not fit
// before the end or when wrapEarly says so.
func (r *Ring) place(size int) int {
	if r.wpos+size > len(r.arena) || r.wrapEarly(size) {
		return 0 // the tail end stays unused this round
	}
	return r.wpos
}

// wrapEarly reports whether the next frame should go back to the start
// of the arena although the end has room: the held frames form one run
// [head, wpos) in the arena and the space before that run is free, holds
// the frame and is at least an eighth of the run's end. The ring then
// cycles through about what its bounds keep, not its whole arena: a 720p
// camera's max_age holds far less than max_bytes, and without this every
// round would touch the whole arena (each first touch is a page fault,
// and the untouched rest of the arena never becomes resident). The
// eighth is slack: a round after the cycle's size was set, the camera's
// byte rate may grow by that much before frames are evicted earlier than
// max_age would (never out of oldest-first order).
func (r *Ring) wrapEarly(size int) bool {
	if r.n == 0 || size == 0 || r.newestRun() > 0 {
		return false
	}
	head := r.at(0).off
	return head >= size && head >= r.wpos/8
}

// reset empties the ring after time ran backwards further than MaxAge (a
// looped bag, a restarted simulator): the frames held belong to the old
// time, and keeping the old newest stamp would evict every new frame as
// too old.
func (r *Ring) reset() {
	for r.n > 0 {
		r.evictOldest()
	}
	r.newest = time.Time{}
	r.stats.Resets++
}

// evictOverlapping drops the oldest frames while any held frame overlaps
// [off, off+size). Frames sit in the arena in arrival order, so the frames
// in the way are the oldest ones (after a wrap, the oldest frames left in
// the unused tail go first, which is still oldest-first).
func (r *Ring) evictOverlapping(off, size int) {
	for r.n > 0 && r.anyOverlap(off, size) {
		r.evictOldest()
	}
}

// anyOverlap reports whether any held frame overlaps [off, off+size).
// The frames sit in the arena in arrival order in at most two runs
// (each placed right after the one before): the oldest, and the newest
// that began at the start of the arena. Within a run offsets grow, so
// only a run's first frame with data can be in the way of a write (it
// starts at or before every other of the run). Checking those two keeps
// Put O(1); a scan of every held frame was 2% of edged's CPU.
func (r *Ring) anyOverlap(off, size int) bool {
	return r.firstOverlaps(0, off, size) || r.firstOverlaps(r.newestRun(), off, size)
}

// newestRun is the index (0: the oldest) of the first held frame of the
// newest run; 0 when the held frames form one run.
func (r *Ring) newestRun() int {
	if r.n > 0 && r.runSeq > r.at(0).meta.Seq {
		return int(r.runSeq - r.at(0).meta.Seq)
	}
	return 0
}

// firstOverlaps reports whether the first frame with data from the i-th
// oldest on overlaps [off, off+size).
func (r *Ring) firstOverlaps(i, off, size int) bool {
	for ; i < r.n; i++ {
		if e := r.at(i); e.meta.Size > 0 {
			return e.off < off+size && off < e.off+e.meta.Size
		}
	}
	return false
}

// evictOld drops frames older than MaxAge before the newest stamp.
func (r *Ring) evictOld() {
	limit := r.newest.Add(-r.cfg.MaxAge)
	for r.n > 1 && r.idx[r.head].meta.Stamp.Before(limit) {
		r.evictOldest()
	}
}

func (r *Ring) evictOldest() {
	h := &r.idx[r.head]
	r.stats.FillBytes -= h.meta.Size
	r.stats.Overwritten++
	*h = entry{}
	r.head = (r.head + 1) % len(r.idx)
	r.n--
	if r.n == 0 {
		r.wpos = 0
	}
}

// at returns the i-th oldest entry.
func (r *Ring) at(i int) *entry { return &r.idx[(r.head+i)%len(r.idx)] }

// copyOut copies e's data into dst (grown when too small).
func (r *Ring) copyOut(e *entry, dst []byte) []byte {
	if cap(dst) < e.meta.Size {
		dst = make([]byte, e.meta.Size)
	}
	dst = dst[:e.meta.Size]
	copy(dst, r.arena[e.off:e.off+e.meta.Size])
	return dst
}

// AtOrBefore copies the newest frame stamped at or before t into dst.
// ok is false when there is none.
func (r *Ring) AtOrBefore(t time.Time, dst []byte) (m Meta, data []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	best := -1
	for i := 0; i < r.n; i++ {
		s := r.at(i).meta.Stamp
		if !s.After(t) && (best < 0 || s.After(r.at(best).meta.Stamp)) {
			best = i
		}
	}
	if best < 0 {
		return Meta{}, dst, false
	}
	e := r.at(best)
	return e.meta, r.copyOut(e, dst), true
}

// Nearest copies the frame whose stamp is nearest to t within the
// half-open window [t-window, t+window) into dst; on a tie the earlier
// frame wins. ok is false when no frame is in the window.
func (r *Ring) Nearest(t time.Time, window time.Duration, dst []byte) (m Meta, data []byte, ok bool) {
	return r.NearestExcept(t, window, nil, dst)
}

// NearestExcept is Nearest ignoring the frames whose Seq is in skip (a
// reader retrying after a frame it could not decode).
func (r *Ring) NearestExcept(t time.Time, window time.Duration, skip []uint64, dst []byte) (m Meta, data []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	best, bestD := -1, time.Duration(0)
	for i := 0; i < r.n; i++ {
		if skipped(skip, r.at(i).meta.Seq) {
			continue
		}
		s := r.at(i).meta.Stamp
		d := s.Sub(t)
		if d < -window || d >= window {
			continue
		}
		ad := d
		if ad < 0 {
			ad = -ad
		}
		if best < 0 || ad < bestD || (ad == bestD && s.Before(r.at(best).meta.Stamp)) {
			best, bestD = i, ad
		}
	}
	if best < 0 {
		return Meta{}, dst, false
	}
	e := r.at(best)
	return e.meta, r.copyOut(e, dst), true
}

func skipped(skip []uint64, seq uint64) bool {
	for _, s := range skip {
		if s == seq {
			return true
		}
	}
	return false
}

// Latest copies the most recently stored frame into dst.
func (r *Ring) Latest(dst []byte) (m Meta, data []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return Meta{}, dst, false
	}
	e := r.at(r.n - 1)
	return e.meta, r.copyOut(e, dst), true
}

// Range appends to dst the metadata of the frames stamped in [from, to],
// in arrival order, and returns it. Copy a listed frame's bytes with Copy.
func (r *Ring) Range(from, to time.Time, dst []Meta) []Meta {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < r.n; i++ {
		m := &r.at(i).meta
		if !m.Stamp.Before(from) && !m.Stamp.After(to) {
			dst = append(dst, *m)
		}
	}
	return dst
}

// Settled reports whether the frame nearest t within [t-window,
// t+window) is final: a frame stamped at least as far after t as the
// nearest one is from t has arrived, so a later frame (a camera's stamps
// increase) cannot be nearer. With no frame in the window it waits for
// one stamped t+window or later. It copies nothing.
func (r *Ring) Settled(t time.Time, window time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return false
	}
	best := window
	for i := 0; i < r.n; i++ {
		d := r.at(i).meta.Stamp.Sub(t)
		if d >= -window && d < window {
			best = min(best, d.Abs())
		}
	}
	return !r.newest.Before(t.Add(best))
}

// Copy copies the frame with sequence number seq into dst. ok is false
// when that frame has been overwritten (or never existed).
func (r *Ring) Copy(seq uint64, dst []byte) (data []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return dst, false
	}
	first := r.at(0).meta.Seq
	if seq < first || seq >= first+uint64(r.n) {
		return dst, false
	}
	e := r.at(int(seq - first))
	return r.copyOut(e, dst), true
}

// Stats returns a snapshot of the ring's metrics.
func (r *Ring) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Frames = r.n
	s.CapBytes = len(r.arena)
	for i := 0; i < r.n; i++ {
		st := r.at(i).meta.Stamp
		if s.Oldest.IsZero() || st.Before(s.Oldest) {
			s.Oldest = st
		}
		if st.After(s.Newest) {
			s.Newest = st
		}
	}
	if r.n > 0 {
		s.Span = s.Newest.Sub(s.Oldest)
	}
	return s
}
