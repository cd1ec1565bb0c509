package outbox

import (
	"cmp"
	"context"
	"os"
	"slices"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// maintain is the maintenance goroutine (owned by the Outbox: Close
// cancels ctx and waits for done). It does the file work that must not
// run under o.mu: sealing the full active file, compacting sealed files
// that are mostly garbage, deleting drained ones. It is the only caller
// of compact, so compaction never re-enters itself.
func (o *Outbox) maintain(ctx context.Context) {
	defer close(o.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		o.rotateIfFull()
		for ctx.Err() == nil && o.step() {
		}
	}
}

// rotateIfFull seals the active file once it reached SegmentBytes and
// starts a new one. Its unsynced records are fsynced by the next sync,
// which covers every dirty file.
func (o *Outbox) rotateIfFull() {
	o.mu.Lock()
	full := !o.closed && o.files[len(o.files)-1].size >= o.opts.SegmentBytes
	o.mu.Unlock()
	if !full {
		return
	}
	nf, err := o.createFile()
	if err != nil {
		o.log.Warn("outbox: cannot start a new file; appending to the current one", "err", err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		nf.f.Close()
		return
	}
	old := o.files[len(o.files)-1]
	old.sealed = true
	o.files = append(o.files, nf)
	o.stats.Files = len(o.files)
	if o.wantsWork(old) {
		o.wakeMaintenance()
	}
}

// wantsWork: a sealed file that is drained (to delete) or whose live
// data fell under half of it (to compact). Called with o.mu held.
func (o *Outbox) wantsWork(f *segFile) bool {
	if !f.sealed || f.deleted {
		return false
	}
	return len(f.entries) == 0 || o.garbage(f)
}

func (o *Outbox) garbage(f *segFile) bool {
	return f.live*2 < f.size && f.size >= o.opts.SegmentBytes/4
}

// step does one piece of work and reports whether there may be more.
func (o *Outbox) step() bool {
	o.mu.Lock()
	var drained, compact *segFile
	for _, f := range o.files {
		switch {
		case !f.sealed || f.deleted:
		case len(f.entries) == 0 && f.pins == 0:
			drained = f
		case len(f.entries) > 0 && o.garbage(f) && compact == nil:
			compact = f
		}
		if drained != nil {
			break
		}
	}
	o.mu.Unlock()
	switch {
	case drained != nil:
		return o.deleteFile(drained)
	case compact != nil:
		return o.compact(compact)
	}
	return false
}

// moving is a live record of a file being compacted.
type moving struct {
	e        *entry
	off      int64
	size     int64
	data     []byte // nil: unreadable
	raw      []byte
	newOff   int64
	appended bool
}

// compact copies f's live records to the active file, outside the lock
// but for the one append, then points the entries at their copies once
// these are durable; f, then drained, is deleted by the next step. An
// unreadable record is quarantined and counted once. It reports whether
// it made progress (false: postponed to the next wake-up).
func (o *Outbox) compact(f *segFile) bool {
	o.mu.Lock()
	ms := make([]*moving, 0, len(f.entries))
	for _, e := range f.entries {
		ms = append(ms, &moving{e: e, off: e.off, size: e.size})
	}
	f.pins++
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.unpin(f)
		o.mu.Unlock()
	}()
	slices.SortFunc(ms, func(a, b *moving) int { return cmp.Compare(a.off, b.off) })
	o.compactRead()
	for _, m := range ms {
		m.data, m.raw, _ = o.read(f, m.off, m.size, m.e.seq)
	}
	nf, base, gen, bad, err := o.appendCopies(f, ms)
	for _, m := range bad {
		o.log.Error("outbox: corrupt message quarantined during compaction", "seq", m.e.seq)
		o.quarantine(f.id, m.off, m.raw)
	}
	if err == nil {
		err = o.sync(gen)
	}
	if err != nil {
		o.log.Warn("outbox: compaction postponed", "err", err)
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range ms {
		if m.appended && !m.e.dead && m.e.file == f {
			o.move(m.e, nf, base+m.newOff)
		}
	}
	o.stats.Compactions++
	return true
}

// appendCopies appends, in one write, the copies of the records still
// live in f, and forgets the unreadable ones (returned, to quarantine).
// The liveness check and the append share the lock, so a tombstone
// written later always follows the copy it kills.
func (o *Outbox) appendCopies(f *segFile, ms []*moving) (nf *segFile, base int64, gen uint64, bad []*moving, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, 0, 0, nil, ErrClosed
	}
	var buf, tomb []byte
	for _, m := range ms {
		switch {
		case m.e.dead || m.e.file != f:
		case m.data == nil:
			o.stats.Quarantined++
			tomb = o.remove(tomb, m.e, recEvict)
			bad = append(bad, m)
		default:
			m.newOff, m.appended = int64(len(buf)), true
			buf = appendCopy(buf, m.e, m.data)
		}
	}
	o.appendTombstones(tomb)
	if len(buf) > 0 {
		if nf, base, err = o.append(buf); err != nil {
			return nil, 0, 0, bad, err
		}
	}
	return nf, base, o.writeGen, bad, nil
}

// move points e at its copy in nf. Called with o.mu held.
func (o *Outbox) move(e *entry, nf *segFile, off int64) {
	f := e.file
	delete(f.entries, e.seq)
	f.live -= e.size
	e.file, e.off = nf, off
	nf.entries[e.seq] = e
	nf.live += e.size
}

// deleteFile removes a drained, unpinned file (after carrying its
// tombstones that still matter forward) and reports whether it did: unlisted under the lock,
// closed and removed outside it.
func (o *Outbox) deleteFile(f *segFile) bool {
	if !o.carryTombs(f) {
		return false
	}
	o.mu.Lock()
	if f.deleted || len(f.entries) > 0 || f.pins > 0 || o.closed {
		o.mu.Unlock()
		return false
	}
	f.deleted = true
	o.files = slices.DeleteFunc(o.files, func(g *segFile) bool { return g == f })
	o.stats.DiskBytes -= f.size
	o.stats.Files = len(o.files)
	o.mu.Unlock()
	name := f.f.Name()
	f.f.Close()
	if err := os.Remove(name); err != nil {
		o.log.Warn("outbox: cannot delete file", "file", name, "err", err)
	}
	// Without this fsync a power cut may bring the file back: its
	// messages would be sent again, which the receiver tolerates.
	_ = fsutil.SyncDir(o.opts.Dir)
	return true
}

// appendCopy appends the record of a copy of e with data: as put, or,
// for a message of a group, with its group and name and whether it is
// held.
func appendCopy(buf []byte, e *entry, data []byte) []byte {
	if e.group == "" {
		return appendRecord(buf, recPut, e.prio, e.seq, data)
	}
	typ := byte(recGroup)
	if e.held {
		typ = recHeld
	}
	return appendRecord(buf, typ, e.prio, e.seq, appendGroupData(nil, e.group, e.name, data))
}
