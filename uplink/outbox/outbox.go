package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
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
	// new one started (by the maintenance goroutine, so a file may grow
	// a little past it). Default 32MiB.
	SegmentBytes int64
	// MaxRecord caps one message. Default 80MiB.
	MaxRecord int
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Now is the clock of the messages' ages (Stats.OldestAge). Default
	// time.Now.
	Now func() time.Time
}

// Msg is one message to Put.
type Msg struct {
	Priority Priority
	Data     []byte
	// Group, when set, keeps the message after its Ack (held) until
	// Done(Group), so that Resend can send it again; Name names it in
	// its group (the newest message of a name is the one Resend finds).
	// At most 255 bytes each; Name only with Group.
	Group, Name string
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
	Acked        uint64 // delivered: the broker acknowledged them (Ack)
	Dropped      uint64 // given up without delivery: could not be sent (Drop)
	Evicted      uint64 // messages evicted to make room (held ones included)
	// Held: messages of groups acknowledged by the broker and kept until
	// their group is Done (not in Pending); HeldBytes their record bytes.
	Held      int
	HeldBytes int64
	// EvictedHeld: held messages evicted to make room before their group
	// was Done (part of Evicted); Resent: held messages queued again by
	// Resend; Done: held messages forgotten by Done.
	EvictedHeld uint64
	Resent      uint64
	Done        uint64
	Rejected    uint64 // evictable messages refused (ErrFull)
	OverBound   uint64 // never-evicted messages accepted beyond MaxBytes
	Quarantined uint64 // corrupt records moved to quarantine/, each once
	TornBytes   int64  // bytes cut off torn tails at Open
	Syncs       uint64
	Compactions uint64
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
	dirty   bool      // written since its last fsync
	pins    int       // users outside the lock (a read, an fsync): not deleted meanwhile
	tombs   []tombRef // its tombstones for records of other files (tombs.go)
}

type entry struct {
	seq      uint64
	prio     Priority
	file     *segFile
	off      int64
	size     int64
	queued   bool // durable, so visible to Next
	inflight bool
	dead     bool
	added    time.Time // Put, or Open for a message found on disk
	// inQ: in queues[prio] (a slot trimQueue has not dropped yet).
	inQ bool
	// group and name (Msg.Group, Msg.Name); held: acknowledged and kept
	// until Done (group only).
	group, name string
	held        bool
	inHeld      bool // in held[prio] (a slot compactHeld or evictHeld has not dropped yet)
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
	nextFile  uint64 // touched by Open, then only by the maintenance goroutine
	liveBytes int64
	inflight  int
	groups    map[string]*group
	// held lists the held entries per priority, oldest first, for
	// eviction (entries no longer held are skipped and trimmed).
	held      [numPriorities][]*entry
	heldN     int
	heldBytes int64
	tombQ     []tombRef // tombstones in the buffer the next append writes (tombs.go)
	// evictedGroups: groups that lost held messages in this Put (logged once).
	evictedGroups []string
	writeGen      uint64
	stats         Stats
	recovered     []string
	notify        chan struct{}

	syncMu    sync.Mutex // one fsync round at a time (group commit)
	syncedGen uint64

	wake   chan struct{} // the maintenance goroutine has work
	cancel context.CancelFunc
	done   chan struct{}

	// Fault injection for tests; set right after Open.
	fsync       func(*os.File) error
	compactRead func() // called before compaction reads a file
}

// Open opens (or creates) the outbox in opts.Dir and replays it, then
// starts the maintenance goroutine (rotation, compaction, deleting
// drained files), which Close stops.
func Open(opts Options) (*Outbox, error) {
	if opts.Dir == "" {
		return nil, errors.New("outbox: Options.Dir is required")
	}
	opts = opts.withDefaults()
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("outbox: create %s: %w (check data_dir permissions)", opts.Dir, err)
	}
	o := &Outbox{opts: opts, log: opts.Logger, entries: map[uint64]*entry{}, groups: map[string]*group{}, nextSeq: 1,
		notify: make(chan struct{}, 1), wake: make(chan struct{}, 1), done: make(chan struct{}),
		fsync: (*os.File).Sync, compactRead: func() {}}
	if err := o.replay(); err != nil {
		o.closeFiles()
		return nil, err
	}
	nf, err := o.createFile()
	if err != nil {
		o.closeFiles()
		return nil, err
	}
	o.files = append(o.files, nf)
	o.stats.Files = len(o.files)
	ctx, cancel := context.WithCancel(context.Background())
	o.cancel = cancel
	go o.maintain(ctx)
	o.wakeMaintenance() // the replayed files may be drained or mostly garbage
	return o, nil
}

func (opts Options) withDefaults() Options {
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
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts
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

func (o *Outbox) wakeMaintenance() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Put stores msgs durably (one fsync for all of them, shared with
// concurrent Puts) and returns their sequence numbers. An evictable
// message that does not fit gets ErrFull and sequence 0; the others are
// still stored (the error is returned with the sequences). The messages
// become visible to Next only once durable: a Put that fails was not
// and will not be handed out.
func (o *Outbox) Put(msgs ...Msg) ([]uint64, error) {
	for _, m := range msgs {
		if m.Priority >= numPriorities {
			return nil, fmt.Errorf("outbox: bad priority %d", m.Priority)
		}
		if len(m.Data)+bodyPrefix > o.opts.MaxRecord {
			return nil, fmt.Errorf("outbox: message of %d bytes exceeds the cap of %d", len(m.Data), o.opts.MaxRecord)
		}
		if len(m.Group) > maxGroupName || len(m.Name) > maxGroupName || (m.Group == "" && m.Name != "") {
			return nil, fmt.Errorf("outbox: group %.40q and name %.40q: at most %d bytes each, a name only in a group", m.Group, m.Name, maxGroupName)
		}
	}
	o.mu.Lock()
	seqs, added, gen, full, err := o.write(msgs)
	o.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(added) == 0 {
		return seqs, full
	}
	err = o.sync(gen)
	o.mu.Lock()
	if err != nil {
		o.discard(added)
		o.mu.Unlock()
		return nil, err
	}
	for _, e := range added {
		if !e.dead {
			o.enqueue(e)
		}
	}
	o.stats.Put += uint64(len(added))
	o.mu.Unlock()
	o.signal()
	return seqs, full
}

// write appends msgs (and the tombstones of what they evict) to the
// active file in one write and indexes them, not yet visible. Called
// with o.mu held.
func (o *Outbox) write(msgs []Msg) (seqs []uint64, added []*entry, gen uint64, full, err error) {
	if o.closed {
		return nil, nil, 0, nil, ErrClosed
	}
	seqs = make([]uint64, len(msgs))
	var buf []byte
	evictedHeld := o.stats.EvictedHeld
	defer func() { o.logEvictedHeld(o.stats.EvictedHeld - evictedHeld) }()
	for i, m := range msgs {
		size := int64(headerLen + bodyPrefix + len(m.Data))
		typ, data := byte(recPut), m.Data
		if m.Group != "" {
			typ, data = recGroup, appendGroupData(nil, m.Group, m.Name, m.Data)
			size = int64(headerLen + bodyPrefix + len(data))
		}
		var ok bool
		if buf, ok = o.makeRoom(buf, size, m.Priority); !ok {
			o.stats.Rejected++
			full = ErrFull
			continue
		}
		seqs[i] = o.nextSeq
		o.nextSeq++
		added = append(added, &entry{seq: seqs[i], prio: m.Priority, off: int64(len(buf)), size: size, added: o.opts.Now(),
			group: m.Group, name: m.Name})
		buf = appendRecord(buf, typ, m.Priority, seqs[i], data)
	}
	if len(buf) == 0 {
		return seqs, nil, 0, full, nil
	}
	f, base, err := o.append(buf)
	if err != nil {
		return nil, nil, 0, full, err
	}
	for _, e := range added {
		e.off += base
		o.addEntry(f, e)
	}
	return seqs, added, o.writeGen, full, nil
}

// discard forgets entries whose Put failed (best-effort tombstones, in
// case their records reach the disk anyway). Called with o.mu held.
func (o *Outbox) discard(added []*entry) {
	var tomb []byte
	for _, e := range added {
		if !e.dead {
			tomb = o.remove(tomb, e, recEvict)
		}
	}
	o.appendTombstones(tomb)
}

// enqueue makes a durable entry visible, keeping its queue in sequence
// order (concurrent Puts may finish their fsync out of order).
func (o *Outbox) enqueue(e *entry) {
	e.queued, e.inQ = true, true
	q := o.queues[e.prio]
	i, _ := slices.BinarySearchFunc(q, e.seq, func(x *entry, seq uint64) int {
		switch {
		case x.seq < seq:
			return -1
		case x.seq > seq:
			return 1
		}
		return 0
	})
	o.queues[e.prio] = slices.Insert(q, i, e)
}

// makeRoom evicts the oldest evictable messages not in flight until size
// more bytes fit under MaxBytes, appending their tombstones to buf. It
// reports whether a message of prio may be stored. An evictable message
// that would not fit even with everything evictable gone is refused
// before anything is evicted for it.
func (o *Outbox) makeRoom(buf []byte, size int64, prio Priority) ([]byte, bool) {
	if prio == PrioritySheet && o.liveBytes+size > o.opts.MaxBytes && o.liveBytes-o.evictableBytes()+size > o.opts.MaxBytes {
		return buf, false
	}
	for o.liveBytes+size > o.opts.MaxBytes {
		var ok bool
		if buf, ok = o.evictOldest(buf); !ok {
			break
		}
	}
	if o.liveBytes+size <= o.opts.MaxBytes {
		return buf, true
	}
	if prio == PrioritySheet {
		return buf, false
	}
	o.stats.OverBound++
	return buf, true
}

// evictableBytes is what evictOldest could free: the held messages and
// the queued sheets not in flight. Called with o.mu held, only when a
// sheet does not fit.
func (o *Outbox) evictableBytes() int64 {
	n := o.heldBytes
	for _, e := range o.queues[PrioritySheet] {
		if !e.dead && !e.inflight && !e.held {
			n += e.size
		}
	}
	return n
}

func (o *Outbox) evictOldest(buf []byte) ([]byte, bool) {
	if buf, ok := o.evictHeld(buf); ok {
		return buf, true
	}
	for _, e := range o.queues[PrioritySheet] {
		if e.dead || e.inflight {
			continue
		}
		o.stats.Evicted++
		return o.remove(buf, e, recEvict), true
	}
	return buf, false
}

// Stats returns a snapshot.
func (o *Outbox) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.stats
	s.Pending = len(o.entries) - o.heldN
	s.PendingBytes = o.liveBytes - o.heldBytes
	s.Held, s.HeldBytes = o.heldN, o.heldBytes
	s.InFlight = o.inflight
	var oldest time.Time
	for _, e := range o.entries {
		if !e.dead && !e.held && (oldest.IsZero() || e.added.Before(oldest)) {
			oldest = e.added
		}
	}
	if !oldest.IsZero() {
		s.OldestAge = o.opts.Now().Sub(oldest)
	}
	return s
}

// Close stops the maintenance goroutine, makes the tombstones durable
// and closes the files. Messages in flight stay in the outbox and are
// sent again after the next Open.
func (o *Outbox) Close() error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	<-o.done
	o.syncMu.Lock()
	defer o.syncMu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	var err error
	for _, f := range o.files {
		if !f.dirty {
			continue
		}
		if e := o.fsync(f.f); e != nil {
			err = errors.Join(err, fmt.Errorf("outbox: fsync %s: %w", f.f.Name(), e))
			continue
		}
		f.dirty = false
	}
	o.closeFiles()
	return err
}
