package outbox

// Tombstones outlive their file when they must. A tombstone ('A', 'E',
// 'D') written in file F for a message whose record is in an older file
// T only works while both exist: once F drains and is deleted, a reopen
// would find the record in T without its tombstone, and a removed
// message (or a group already Done) would come back, a held one would be
// sent again. So each file lists the tombstones it holds for records of
// other files (tombRef), and before a drained file is deleted those that
// still matter (their record's file stays; an 'A' while its message is
// still held there) are written again to the active file and made
// durable. They matter only until T goes too, which compaction brings
// about once T is mostly garbage.

// tombRef is a tombstone in one file for the record of seq in target.
type tombRef struct {
	seq    uint64
	typ    byte
	prio   Priority
	target *segFile
}

// tomb appends the tombstone of typ for e to buf and notes it for the
// file the next append writes to. Called with o.mu held.
func (o *Outbox) tomb(buf []byte, e *entry, typ byte) []byte {
	o.tombQ = append(o.tombQ, tombRef{seq: e.seq, typ: typ, prio: e.prio, target: e.file})
	return appendRecord(buf, typ, e.prio, e.seq, nil)
}

// noteTombs files the tombstones just appended to f (o.tombQ) under f,
// but those for f's own records. Called with o.mu held.
func (o *Outbox) noteTombs(f *segFile) {
	for _, t := range o.tombQ {
		if t.target != nil && t.target != f {
			f.tombs = append(f.tombs, t)
		}
	}
	o.tombQ = o.tombQ[:0]
}

// matters reports whether tombstone t must outlive its file: its
// record's file stays and, for an acknowledgement of a message still
// live (held), it is still held there. Called with o.mu held.
func (o *Outbox) matters(t tombRef) bool {
	if t.target == nil || t.target.deleted {
		return false
	}
	if e := o.entries[t.seq]; e != nil && t.typ == recAck {
		return e.held && e.file == t.target // a group's message, still held where it was acknowledged
	}
	return true // the message is gone: its record must stay dead
}

// carryTombs writes the tombstones of the drained file f that still
// matter again, to the active file, and makes them durable. It reports
// whether f may be deleted now (false: not drained any more, or the
// write failed; the maintenance goroutine tries again).
func (o *Outbox) carryTombs(f *segFile) bool {
	o.mu.Lock()
	if f.deleted || len(f.entries) > 0 || f.pins > 0 || o.closed {
		o.mu.Unlock()
		return false
	}
	var buf []byte
	for _, t := range f.tombs {
		if o.matters(t) {
			o.tombQ = append(o.tombQ, t)
			buf = appendRecord(buf, t.typ, t.prio, t.seq, nil)
		}
	}
	if len(buf) == 0 {
		o.mu.Unlock()
		return true
	}
	_, _, err := o.append(buf)
	gen := o.writeGen
	o.mu.Unlock()
	if err == nil {
		err = o.sync(gen)
	}
	if err != nil {
		o.log.Warn("outbox: a drained file is kept until its tombstones are copied", "file", f.f.Name(), "err", err)
		return false
	}
	return true
}
