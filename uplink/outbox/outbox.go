package outbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Priority orders delivery: lower numbers go first.
type Priority uint8

// Priorities, highest first.
const (
	PriorityControl Priority = iota // manifests and segments: never evicted
	PrioritySnippet                 // state snippets: never evicted
	PrioritySheet                   // sheets and labeling sheets: evicted oldest first when full
	numPriorities
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 2 << 30
	DefaultSegmentBytes = 32 << 20
	DefaultMaxRecord    = 80 << 20
)

// ErrFull is returned by Put for an evictable message that does not fit
// even after evicting every other evictable message.
var ErrFull = errors.New("outbox: full of messages that are never evicted; the message was dropped")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("outbox: closed")

// Options configure an Outbox.
type Options struct {
	// Dir holds the files; created if missing. Required.
	Dir string
	// MaxBytes caps the bytes of messages waiting (records included).
	// Default 2GiB. The disk may transiently hold up to about twice
	// that plus SegmentBytes until compaction catches up.
	MaxBytes int64
	// SegmentBytes is the size at which the active file is sealed and a
	// new one started. Default 32MiB.
	SegmentBytes int64
	// MaxRecord caps one message. Default 80MiB.
	MaxRecord int
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Msg is one message to Put.
type Msg struct {
	Priority Priority
	Data     []byte
}

// Item is a message handed out by Next.
type Item struct {
	Seq      uint64
	Priority Priority
	Data     []byte
}

// Stats are cumulative counts and current sizes.
type Stats struct {
	Pending      int   // messages waiting (in flight included)
	PendingBytes int64 // their record bytes
	InFlight     int
	DiskBytes    int64
	Files        int
	Put          uint64
	Acked        uint64
	Evicted      uint64 // sheets evicted to make room
	Rejected     uint64 // evictable messages refused (ErrFull)
	OverBound    uint64 // never-evicted messages accepted beyond MaxBytes
	Quarantined  uint64 // corrupt records moved to quarantine/
	TornBytes    int64  // bytes cut off torn tails at Open
	Syncs        uint64
	Compactions  uint64
	// OldestAge is how long the oldest waiting message has waited
	// (since its Put, or since Open for one found on disk); 0 if none.
	OldestAge time.Duration
}

type segFile struct {
	id      uint64
	f       *os.File
	size    int64
	live    int64
	entries map[uint64]*entry
	sealed  bool
	deleted bool
}

type entry struct {
	seq      uint64
	prio     Priority
	file     *segFile
	off      int64
	size     int64
	inflight bool
	dead     bool
	added    time.Time // Put, or Open for a message found on disk
}

// Outbox is the durable queue. Create it with Open.
type Outbox struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	closed    bool
	files     []*segFile // by id; the last is active
	entries   map[uint64]*entry
	queues    [numPriorities][]*entry
	deadInQ   [numPriorities]int
	nextSeq   uint64
	nextFile  uint64
	liveBytes int64
	inflight  int
	writeGen  uint64
	stats     Stats
	recovered []string
	notify    chan struct{}

	syncMu    sync.Mutex
	syncedGen uint64
}

// Open opens (or creates) the outbox in opts.Dir and replays it.
func Open(opts Options) (*Outbox, error) {
	if opts.Dir == "" {
		return nil, errors.New("outbox: Options.Dir is required")
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = DefaultSegmentBytes
	}
	if opts.MaxRecord <= 0 {
		opts.MaxRecord = DefaultMaxRecord
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("outbox: create %s: %w (check data_dir permissions)", opts.Dir, err)
	}
	o := &Outbox{opts: opts, log: opts.Logger, entries: map[uint64]*entry{}, nextSeq: 1, notify: make(chan struct{}, 1)}
	if err := o.replay(); err != nil {
		o.closeFiles()
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.rotate(); err != nil {
		o.closeFiles()
		return nil, err
	}
	for _, f := range append([]*segFile(nil), o.files[:len(o.files)-1]...) {
		o.maybeDrop(f)
	}
	return o, nil
}

// Recovered describes what Open repaired (torn tails, quarantined
// records), one line each.
func (o *Outbox) Recovered() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.recovered...)
}

// Notify returns a channel that receives a value whenever a message
// becomes available to Next (after Put or Release).
func (o *Outbox) Notify() <-chan struct{} { return o.notify }

func (o *Outbox) signal() {
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// Put stores msgs durably (one fsync for all of them, shared with
// concurrent Puts) and returns their sequence numbers. An evictable
// message that does not fit gets ErrFull and sequence 0; the others are
// still stored (the error is returned with the sequences).
func (o *Outbox) Put(msgs ...Msg) ([]uint64, error) {
	seqs := make([]uint64, len(msgs))
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil, ErrClosed
	}
	var buf []byte
	var added []*entry
	var full error
	for i, m := range msgs {
		if m.Priority >= numPriorities {
			o.mu.Unlock()
			return nil, fmt.Errorf("outbox: bad priority %d", m.Priority)
		}
		size := int64(headerLen + bodyPrefix + len(m.Data))
		if len(m.Data)+bodyPrefix > o.opts.MaxRecord {
			o.mu.Unlock()
			return nil, fmt.Errorf("outbox: message of %d bytes exceeds the cap of %d", len(m.Data), o.opts.MaxRecord)
		}
		if !o.makeRoom(size, m.Priority) {
			o.stats.Rejected++
			full = ErrFull
			continue
		}
		seq := o.nextSeq
		o.nextSeq++
		seqs[i] = seq
		e := &entry{seq: seq, prio: m.Priority, off: int64(len(buf)), size: size, added: time.Now()}
		buf = appendRecord(buf, recPut, m.Priority, seq, m.Data)
		added = append(added, e)
	}
	if len(added) == 0 {
		o.mu.Unlock()
		return seqs, full
	}
	f, base, err := o.append(buf)
	if err != nil {
		o.mu.Unlock()
		return nil, err
	}
	for _, e := range added {
		e.off += base
		o.addEntry(f, e)
		o.queues[e.prio] = append(o.queues[e.prio], e)
		o.stats.Put++
	}
	o.writeGen++
	gen := o.writeGen
	o.mu.Unlock()
	if err := o.sync(gen); err != nil {
		return nil, err
	}
	o.signal()
	return seqs, full
}

// makeRoom evicts the oldest evictable messages not in flight until size
// more bytes fit under MaxBytes. It reports whether a message of prio
// may be stored.
func (o *Outbox) makeRoom(size int64, prio Priority) bool {
	for o.liveBytes+size > o.opts.MaxBytes {
		if !o.evictOldest() {
			break
		}
	}
	if o.liveBytes+size <= o.opts.MaxBytes {
		return true
	}
	if prio == PrioritySheet {
		return false
	}
	o.stats.OverBound++
	return true
}

func (o *Outbox) evictOldest() bool {
	for _, e := range o.queues[PrioritySheet] {
		if e.dead || e.inflight {
			continue
		}
		o.remove(e, recEvict)
		o.stats.Evicted++
		return true
	}
	return false
}

// append writes buf to the active file (rotating first if it is full)
// and returns the file and the offset buf starts at.
func (o *Outbox) append(buf []byte) (*segFile, int64, error) {
	f := o.files[len(o.files)-1]
	if f.size > 0 && f.size+int64(len(buf)) > o.opts.SegmentBytes {
		if err := o.rotate(); err != nil {
			return nil, 0, err
		}
		f = o.files[len(o.files)-1]
	}
	base := f.size
	if _, err := f.f.WriteAt(buf, base); err != nil {
		// Do not leave a half record for the next append to follow.
		_ = f.f.Truncate(base)
		return nil, 0, fmt.Errorf("outbox: write %s: %w (is the disk full?)", f.f.Name(), err)
	}
	f.size += int64(len(buf))
	o.stats.DiskBytes += int64(len(buf))
	return f, base, nil
}

// rotate seals the active file (fsync) and starts a new one.
func (o *Outbox) rotate() error {
	if n := len(o.files); n > 0 {
		old := o.files[n-1]
		if err := old.f.Sync(); err != nil {
			return fmt.Errorf("outbox: fsync %s: %w", old.f.Name(), err)
		}
		old.sealed = true
	}
	id := o.nextFile
	o.nextFile++
	name := filepath.Join(o.opts.Dir, fmt.Sprintf("seg-%016x.log", id))
	fh, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("outbox: create %s: %w", name, err)
	}
	if err := fsutil.SyncDir(o.opts.Dir); err != nil {
		fh.Close()
		return err
	}
	o.files = append(o.files, &segFile{id: id, f: fh, entries: map[uint64]*entry{}})
	o.stats.Files = len(o.files)
	if n := len(o.files); n > 1 {
		o.maybeDrop(o.files[n-2])
	}
	return nil
}

func (o *Outbox) addEntry(f *segFile, e *entry) {
	e.file = f
	f.entries[e.seq] = e
	f.live += e.size
	o.entries[e.seq] = e
	o.liveBytes += e.size
}

// sync makes every write up to gen durable; concurrent callers share
// one fsync (group commit).
func (o *Outbox) sync(gen uint64) error {
	o.syncMu.Lock()
	defer o.syncMu.Unlock()
	if o.syncedGen >= gen {
		return nil
	}
	o.mu.Lock()
	g := o.writeGen
	f := o.files[len(o.files)-1].f
	o.stats.Syncs++
	o.mu.Unlock()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("outbox: fsync: %w", err)
	}
	o.syncedGen = g
	return nil
}

// Next returns the next message to publish, marked in flight, waiting
// until there is one or ctx ends.
func (o *Outbox) Next(ctx context.Context) (Item, error) {
	for {
		it, ok, err := o.TryNext()
		if err != nil || ok {
			return it, err
		}
		select {
		case <-ctx.Done():
			return Item{}, ctx.Err()
		case <-o.notify:
		}
	}
}

// TryNext is Next without waiting: ok is false when nothing is ready.
func (o *Outbox) TryNext() (it Item, ok bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return Item{}, false, ErrClosed
	}
	for p := range o.queues {
		o.trimQueue(Priority(p))
		for _, e := range o.queues[p] {
			if e.dead || e.inflight {
				continue
			}
			data, err := o.read(e)
			if err != nil {
				o.log.Error("outbox: corrupt message quarantined", "seq", e.seq, "err", err)
				o.stats.Quarantined++
				o.remove(e, recEvict)
				continue
			}
			e.inflight = true
			o.inflight++
			return Item{Seq: e.seq, Priority: e.prio, Data: data}, true, nil
		}
	}
	return Item{}, false, nil
}

// read returns a copy of e's data, checking its record.
func (o *Outbox) read(e *entry) ([]byte, error) {
	b := make([]byte, e.size)
	if _, err := e.file.f.ReadAt(b, e.off); err != nil {
		return nil, fmt.Errorf("read %s@%d: %w", e.file.f.Name(), e.off, err)
	}
	r, ok := parseRecord(b, o.opts.MaxRecord)
	if !ok || r.seq != e.seq || r.typ != recPut {
		o.quarantine(e.file, e.off, b)
		return nil, fmt.Errorf("record %s@%d changed on disk", e.file.f.Name(), e.off)
	}
	return r.data, nil
}

// trimQueue drops dead entries from the front, and all of them when
// they are the majority.
func (o *Outbox) trimQueue(p Priority) {
	q := o.queues[p]
	i := 0
	for i < len(q) && q[i].dead {
		i++
		o.deadInQ[p]--
	}
	q = q[i:]
	if o.deadInQ[p] > 64 && o.deadInQ[p] > len(q)/2 {
		keep := q[:0:0]
		for _, e := range q {
			if !e.dead {
				keep = append(keep, e)
			}
		}
		q = keep
		o.deadInQ[p] = 0
	}
	o.queues[p] = q
}

// Ack removes a delivered message. Unknown sequences are ignored.
func (o *Outbox) Ack(seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e := o.entries[seq]; e != nil && !o.closed {
		o.remove(e, recAck)
		o.stats.Acked++
	}
}

// Release returns an in-flight message to the queue (not acknowledged:
// it will be sent again).
func (o *Outbox) Release(seq uint64) {
	o.mu.Lock()
	if e := o.entries[seq]; e != nil && e.inflight {
		e.inflight = false
		o.inflight--
	}
	o.mu.Unlock()
	o.signal()
}

// remove forgets e and appends its tombstone (made durable with the
// next fsync).
func (o *Outbox) remove(e *entry, typ byte) {
	if e.inflight {
		o.inflight--
	}
	e.dead = true
	o.deadInQ[e.prio]++
	delete(o.entries, e.seq)
	f := e.file
	delete(f.entries, e.seq)
	f.live -= e.size
	o.liveBytes -= e.size
	if _, _, err := o.append(appendRecord(nil, typ, e.prio, e.seq, nil)); err != nil {
		o.log.Warn("outbox: tombstone not written; the message may be sent again after a restart", "seq", e.seq, "err", err)
	}
	o.writeGen++
	o.maybeDrop(f)
}

// maybeDrop deletes a sealed file without live messages, or compacts one
// that is mostly garbage.
func (o *Outbox) maybeDrop(f *segFile) {
	if !f.sealed || f.deleted {
		return
	}
	if len(f.entries) == 0 {
		o.deleteFile(f)
		return
	}
	if f.live*2 < f.size && f.size >= o.opts.SegmentBytes/4 {
		o.compact(f)
	}
}

// compact copies f's live records to the active file, then deletes f.
func (o *Outbox) compact(f *segFile) {
	var buf []byte
	moved := make([]*entry, 0, len(f.entries))
	for _, e := range f.entries {
		data, err := o.read(e)
		if err != nil {
			o.log.Error("outbox: corrupt message quarantined during compaction", "seq", e.seq, "err", err)
			o.stats.Quarantined++
			continue
		}
		buf = appendRecord(buf, recPut, e.prio, e.seq, data)
		moved = append(moved, e)
	}
	offs := make([]int64, len(moved))
	var off int64
	for i, e := range moved {
		offs[i] = off
		off += e.size
	}
	active := o.files[len(o.files)-1]
	if active.size+int64(len(buf)) > o.opts.SegmentBytes && active.size > 0 {
		if err := o.rotate(); err != nil {
			o.log.Warn("outbox: compaction postponed", "err", err)
			return
		}
	}
	nf, base, err := o.append(buf)
	if err != nil {
		o.log.Warn("outbox: compaction postponed", "err", err)
		return
	}
	if err := nf.f.Sync(); err != nil {
		o.log.Warn("outbox: compaction postponed", "err", err)
		return
	}
	for i, e := range moved {
		delete(f.entries, e.seq)
		f.live -= e.size
		o.liveBytes -= e.size
		e.off = base + offs[i]
		o.addEntry(nf, e)
	}
	// Entries that could not be read are dropped with the file.
	for _, e := range f.entries {
		o.remove(e, recEvict)
	}
	o.stats.Compactions++
	o.deleteFile(f)
}

func (o *Outbox) deleteFile(f *segFile) {
	if f.deleted {
		return
	}
	f.deleted = true
	for i, g := range o.files {
		if g == f {
			o.files = append(o.files[:i], o.files[i+1:]...)
			break
		}
	}
	name := f.f.Name()
	f.f.Close()
	if err := os.Remove(name); err != nil {
		o.log.Warn("outbox: cannot delete file", "file", name, "err", err)
	}
	o.stats.DiskBytes -= f.size
	o.stats.Files = len(o.files)
	// Without this fsync a power cut may bring the file back: its
	// messages would be sent again, which the receiver tolerates.
	_ = fsutil.SyncDir(o.opts.Dir)
}

// Stats returns a snapshot.
func (o *Outbox) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.stats
	s.Pending = len(o.entries)
	s.PendingBytes = o.liveBytes
	s.InFlight = o.inflight
	var oldest time.Time
	for _, e := range o.entries {
		if !e.dead && (oldest.IsZero() || e.added.Before(oldest)) {
			oldest = e.added
		}
	}
	if !oldest.IsZero() {
		s.OldestAge = time.Since(oldest)
	}
	return s
}

// Close makes the tombstones durable and closes the files. Messages in
// flight stay in the outbox and are sent again after the next Open.
func (o *Outbox) Close() error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	var err error
	if n := len(o.files); n > 0 {
		err = o.files[n-1].f.Sync()
	}
	o.closeFiles()
	o.mu.Unlock()
	return err
}

func (o *Outbox) closeFiles() {
	for _, f := range o.files {
		f.f.Close()
	}
}
