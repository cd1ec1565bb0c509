package outbox

import (
	"slices"
	"strings"
	"time"
)

// Groups: a message put with a Group is not removed when the broker
// acknowledges it (Ack) but held, and stays on disk until Done(group):
// the receiver said it holds the whole group. Resend queues held
// messages again, with their bytes unchanged. Held messages count
// against MaxBytes and are the first evicted when a Put needs room
// (sheets, then snippets, then control messages, each oldest first),
// before any queued sheet: they were delivered to the broker once.

// group indexes the live messages of one group.
type group struct {
	queued    int // live messages not held (waiting or in flight)
	held      int
	heldBytes int64
	sent      time.Time // when the broker last acknowledged one of them
	// members are its live messages; pieces the newest of each name.
	members map[uint64]*entry
	pieces  map[string]*entry
}

// GroupInfo describes one group's live messages (Groups).
type GroupInfo struct {
	Group     string
	Queued    int // waiting or in flight: not yet acknowledged by the broker
	Held      int // acknowledged by the broker, kept until Done
	HeldBytes int64
	// Sent is when the broker last acknowledged one of its messages
	// (Open's time for messages held before it).
	Sent time.Time
}

// ResendResult says what Resend did with each name.
type ResendResult struct {
	Queued  []string // held, now queued again
	Waiting []string // not acknowledged by the broker yet: queued or in flight already
	Missing []string // not in the outbox (never put with that name, evicted or Done)
}

func (o *Outbox) addToGroup(e *entry) {
	g := o.groups[e.group]
	if g == nil {
		g = &group{members: map[uint64]*entry{}, pieces: map[string]*entry{}}
		o.groups[e.group] = g
	}
	if e.held {
		g.held++
		g.heldBytes += e.size
	} else {
		g.queued++
	}
	g.members[e.seq] = e
	if old := g.pieces[e.name]; old == nil || old.seq < e.seq {
		g.pieces[e.name] = e
	}
}

// unindex forgets live entry e (its file's and its group's counts
// included). Called with o.mu held.
func (o *Outbox) unindex(e *entry) {
	delete(o.entries, e.seq)
	delete(e.file.entries, e.seq)
	e.file.live -= e.size
	o.liveBytes -= e.size
	if e.held {
		o.heldN--
		o.heldBytes -= e.size
	}
	if g := o.groups[e.group]; g != nil {
		if e.held {
			g.held--
			g.heldBytes -= e.size
		} else {
			g.queued--
		}
		delete(g.members, e.seq)
		if g.pieces[e.name] == e {
			delete(g.pieces, e.name)
			g.nameAgain(e.name) // an older message of that name (shipped twice) answers for it
		}
		if g.held+g.queued == 0 {
			delete(o.groups, e.group)
		}
	}
	e.held = false
}

// hold keeps an acknowledged message of a group. Called with o.mu held.
func (o *Outbox) hold(e *entry) {
	if e.inflight {
		e.inflight = false
		o.inflight--
	}
	if e.inQ {
		o.deadInQ[e.prio]++ // skipped by Next, trimmed by trimQueue
	}
	now := o.opts.Now()
	o.markHeld(e, now)
}

// markHeld counts e as held (hold, and replay for a message found
// acknowledged). Called with o.mu held.
func (o *Outbox) markHeld(e *entry, sent time.Time) {
	e.held = true
	o.heldN++
	o.heldBytes += e.size
	if !e.inHeld { // resent and held again: listed already
		e.inHeld = true
		o.held[e.prio] = append(o.held[e.prio], e)
	}
	if g := o.groups[e.group]; g != nil {
		g.queued--
		g.held++
		g.heldBytes += e.size
		if sent.After(g.sent) {
			g.sent = sent
		}
	}
}

// requeue makes held e waiting again. Called with o.mu held.
func (o *Outbox) requeue(e *entry) {
	e.held = false
	o.heldN--
	o.heldBytes -= e.size
	if g := o.groups[e.group]; g != nil {
		g.held--
		g.heldBytes -= e.size
		g.queued++
	}
	if e.inQ {
		o.deadInQ[e.prio]--
	} else {
		o.enqueue(e)
	}
}

// evictHeld evicts the oldest held message, sheets first (Stats.Evicted
// and EvictedHeld), and reports whether there was one. Called with o.mu
// held.
func (o *Outbox) evictHeld(buf []byte) ([]byte, bool) {
	for _, p := range []Priority{PrioritySheet, PrioritySnippet, PriorityControl} {
		q := o.held[p]
		for len(q) > 0 && (q[0].dead || !q[0].held) {
			q[0].inHeld = false
			q = q[1:]
		}
		o.held[p] = q
		if len(q) == 0 {
			continue
		}
		e := q[0]
		e.inHeld = false
		o.held[p] = q[1:]
		o.stats.Evicted++
		o.stats.EvictedHeld++
		if !slices.Contains(o.evictedGroups, e.group) && len(o.evictedGroups) < 8 {
			o.evictedGroups = append(o.evictedGroups, e.group)
		}
		return o.remove(buf, e, recEvict), true
	}
	return buf, false
}

// nameAgain points name at the newest other live message of that name,
// if any.
func (g *group) nameAgain(name string) {
	for _, e := range g.members {
		if e.name == name && (g.pieces[name] == nil || g.pieces[name].seq < e.seq) {
			g.pieces[name] = e
		}
	}
}

// logEvictedHeld says, once a Put, which groups lost held messages to
// make room. Called with o.mu held.
func (o *Outbox) logEvictedHeld(n uint64) {
	if n == 0 {
		return
	}
	o.log.Warn("outbox: messages shipped but not yet acknowledged by the receiver were evicted to make room; "+
		"the receiver cannot get them again from this robot (raise uplink.outbox_bytes)", "messages", n,
		"episodes", strings.Join(o.evictedGroups, " "))
	o.evictedGroups = o.evictedGroups[:0]
}

// Done forgets every message of group (the receiver holds it all),
// held or not, and returns how many there were.
func (o *Outbox) Done(group string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	g := o.groups[group]
	if o.closed || g == nil {
		return 0
	}
	gone := make([]*entry, 0, len(g.members))
	for _, e := range g.members {
		gone = append(gone, e)
		if e.held {
			o.stats.Done++
		}
	}
	delete(o.groups, group) // first: unindex then skips the group's own counts and names
	var tomb []byte
	for _, e := range gone {
		tomb = o.remove(tomb, e, recDone)
	}
	o.appendTombstones(tomb)
	o.compactHeld()
	return len(gone)
}

// compactHeld drops the held lists' entries that are no longer held
// once they are the majority. Called with o.mu held.
func (o *Outbox) compactHeld() {
	for p, q := range o.held {
		if len(q) > 64 && len(q) > 2*o.heldN {
			o.held[p] = slices.DeleteFunc(q, func(e *entry) bool {
				gone := e.dead || !e.held
				e.inHeld = e.inHeld && !gone
				return gone
			})
		}
	}
}

// Resend queues the held messages of group named in names again (the
// newest message of each name), unchanged: the receiver lacks them.
func (o *Outbox) Resend(group string, names []string) ResendResult {
	var r ResendResult
	o.mu.Lock()
	g := o.groups[group]
	for _, n := range names {
		var e *entry
		if g != nil {
			e = g.pieces[n]
		}
		switch {
		case e == nil || o.closed:
			r.Missing = append(r.Missing, n)
		case !e.held:
			r.Waiting = append(r.Waiting, n)
		default:
			o.requeue(e)
			o.stats.Resent++
			r.Queued = append(r.Queued, n)
		}
	}
	o.mu.Unlock()
	if len(r.Queued) > 0 {
		o.signal()
	}
	return r
}

// Holds reports whether the newest message named name of group is held
// (acknowledged by the broker and not queued again).
func (o *Outbox) Holds(group, name string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if g := o.groups[group]; g != nil {
		e := g.pieces[name]
		return e != nil && e.held
	}
	return false
}

// Groups describes every group with live messages, by name.
func (o *Outbox) Groups() []GroupInfo {
	o.mu.Lock()
	out := make([]GroupInfo, 0, len(o.groups))
	for name, g := range o.groups {
		out = append(out, GroupInfo{Group: name, Queued: g.queued, Held: g.held, HeldBytes: g.heldBytes, Sent: g.sent})
	}
	o.mu.Unlock()
	slices.SortFunc(out, func(a, b GroupInfo) int { return strings.Compare(a.Group, b.Group) })
	return out
}
