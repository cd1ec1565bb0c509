package outbox

import (
	"context"
	"fmt"
)

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
// The message is read outside the lock; one whose record is unreadable
// is quarantined, counted once, and skipped.
func (o *Outbox) TryNext() (it Item, ok bool, err error) {
	for {
		o.mu.Lock()
		if o.closed {
			o.mu.Unlock()
			return Item{}, false, ErrClosed
		}
		e := o.nextReady()
		if e == nil {
			o.mu.Unlock()
			return Item{}, false, nil
		}
		f, off, size := e.file, e.off, e.size
		f.pins++
		o.mu.Unlock()

		data, raw, rerr := o.read(f, off, size, e.seq)
		o.mu.Lock()
		o.unpin(f)
		if rerr == nil {
			o.mu.Unlock()
			return Item{Seq: e.seq, Priority: e.prio, Data: data}, true, nil
		}
		if o.closed {
			o.mu.Unlock()
			return Item{}, false, ErrClosed
		}
		first := o.dropCorrupt(e)
		o.mu.Unlock()
		if first {
			o.log.Error("outbox: corrupt message quarantined", "seq", e.seq, "err", rerr)
			o.quarantine(f.id, off, raw)
		}
	}
}

// nextReady marks the first queued message that is not in flight in
// flight and returns it. Called with o.mu held.
func (o *Outbox) nextReady() *entry {
	for p := range o.queues {
		o.trimQueue(Priority(p))
		for _, e := range o.queues[p] {
			if e.dead || e.inflight || e.held {
				continue
			}
			e.inflight = true
			o.inflight++
			return e
		}
	}
	return nil
}

// dropCorrupt forgets an unreadable entry and reports whether this call
// did it (so it is quarantined and counted once). Called with o.mu held.
func (o *Outbox) dropCorrupt(e *entry) bool {
	if e.dead {
		return false
	}
	o.stats.Quarantined++
	o.appendTombstones(o.remove(nil, e, recEvict))
	return true
}

func (o *Outbox) unpin(f *segFile) {
	f.pins--
	if f.pins == 0 && f.sealed && len(f.entries) == 0 {
		o.wakeMaintenance()
	}
}

// read returns a copy of the data of the record of seq at off in f (no
// lock needed: the file is pinned and records never change in place),
// and the raw bytes when the record does not check out.
func (o *Outbox) read(f *segFile, off, size int64, seq uint64) (data, raw []byte, err error) {
	b := make([]byte, size) // size was capped by MaxRecord when the record was parsed or put
	if _, err := f.f.ReadAt(b, off); err != nil {
		return nil, b, fmt.Errorf("read %s@%d: %w", f.f.Name(), off, err)
	}
	r, ok := parseRecord(b, o.opts.MaxRecord)
	if !ok || r.seq != seq || !isPut(r.typ) {
		return nil, b, fmt.Errorf("record %s@%d changed on disk", f.f.Name(), off)
	}
	return r.data, nil, nil
}

// trimQueue drops dead and held entries from the front, and all of
// them when they are the majority (deadInQ counts them).
func (o *Outbox) trimQueue(p Priority) {
	q := o.queues[p]
	i := 0
	for i < len(q) && (q[i].dead || q[i].held) {
		q[i].inQ = false
		i++
		o.deadInQ[p]--
	}
	q = q[i:]
	if o.deadInQ[p] > 64 && o.deadInQ[p] > len(q)/2 {
		keep := q[:0:0]
		for _, e := range q {
			if e.dead || e.held {
				e.inQ = false
			} else {
				keep = append(keep, e)
			}
		}
		q = keep
		o.deadInQ[p] = 0
	}
	o.queues[p] = q
}

// Ack removes a delivered message (the broker acknowledged it), or
// holds it when it has a group (until Done). Unknown sequences are
// ignored.
func (o *Outbox) Ack(seq uint64) { o.forget(seq, recAck, &o.stats.Acked) }

// Drop removes a message that will never be delivered (it cannot be
// sent: it does not decode); counted apart from acknowledged ones.
// Unknown sequences are ignored.
func (o *Outbox) Drop(seq uint64) { o.forget(seq, recEvict, &o.stats.Dropped) }

func (o *Outbox) forget(seq uint64, typ byte, counter *uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entries[seq]
	if e == nil || !e.queued || o.closed || e.held {
		return
	}
	*counter++
	if typ == recAck && e.group != "" {
		o.hold(e)
		o.appendTombstones(o.tomb(nil, e, recAck))
		return
	}
	o.appendTombstones(o.remove(nil, e, typ))
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

// remove forgets e and appends its tombstone to buf. A sealed file it
// leaves drained or mostly garbage is the maintenance goroutine's to
// delete or compact. Called with o.mu held.
func (o *Outbox) remove(buf []byte, e *entry, typ byte) []byte {
	if e.inflight {
		o.inflight--
		e.inflight = false
	}
	if e.inQ && !e.held { // a held entry in a queue is counted already
		o.deadInQ[e.prio]++
	}
	o.unindex(e)
	e.dead = true
	f := e.file
	if f.sealed && o.wantsWork(f) {
		o.wakeMaintenance()
	}
	return o.tomb(buf, e, typ)
}
