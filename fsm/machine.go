package fsm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// Stats are the fsm counters, for /metrics.
type Stats struct {
	Events      uint64 // state events handled
	Dropped     uint64 // events dropped because the queue was full (count or bytes)
	Bad         uint64 // events a source could not interpret
	Unknown     uint64 // events from a topic that is no source
	Transitions uint64
	Heartbeats  uint64
	Segments    uint64 // segments closed and stored
	Episodes    uint64 // episodes closed
	StoreErrors uint64 // writes to the episode store that failed
	// Truncated counts FSM messages with a state name, label, path or
	// goal id longer than MaxLabelBytes (or an instruction longer than
	// MaxInstructionBytes), stored cut.
	Truncated uint64
	// ClockResets counts backward time jumps that closed and restarted
	// the recording (see ClockResetAfter).
	ClockResets uint64
	LastError   string
}

// ClockResetAfter is how far one source's time may run backwards before
// it counts as a reset (a looped bag, a restarted simulator): less is
// stamp jitter and is clamped; more closes the open episode as
// interrupted and starts over in the new time.
const ClockResetAfter = time.Second

// Machine is the fsm stage. See the package doc.
type Machine struct {
	cfg     Config
	events  chan capture.StateEvent
	flush   chan chan struct{}
	advance chan advanceReq
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	closed  sync.Once

	dropped atomic.Uint64
	queued  atomic.Int64 // bytes of the events in the queue (StateEvent.Bytes)
	mu      sync.Mutex   // guards st
	st      Stats

	// Owned by the run loop.
	store       *epstore.Store
	sources     map[string]*source
	goalSources map[string]*source // actionlib goal topic -> its source
	order       []*source
	w           *epstore.Writer
	open        map[*source]map[string]openSeg
	recording   bool
	recName     string
	instruction string
	seenEvent   bool
	lastStamp   time.Time       // the latest stamp seen (events and Advance)
	warned      map[string]bool // topics whose truncation was logged
	closing     *closing        // an ended episode the store could not close yet
	beginFailed time.Time       // wall clock of the last failed Begin
	closeErr    error           // the shutdown's own store failure, for Close
}

// now is the stream clock between events: Config.Clock when it has a
// reading, else the latest stamp seen (events, Advance). Never wall
// time: a replay's episodes must not depend on how fast it ran.
func (m *Machine) now() time.Time {
	if m.cfg.Clock != nil {
		if t, ok := m.cfg.Clock(); ok && t.After(m.lastStamp) {
			return t
		}
	}
	return m.lastStamp
}

type openSeg struct {
	active
	start time.Time
}

// New validates cfg and starts the run loop writing into store.
func New(cfg Config, store *epstore.Store) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, errors.New("fsm: an episode store is required")
	}
	cfg.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Machine{cfg: cfg, events: make(chan capture.StateEvent, cfg.QueueSize), flush: make(chan chan struct{}),
		advance: make(chan advanceReq),
		ctx:     ctx, cancel: cancel, done: make(chan struct{}), store: store, sources: map[string]*source{}, goalSources: map[string]*source{},
		open: map[*source]map[string]openSeg{}, instruction: cfg.Instruction, warned: map[string]bool{}}
	for _, s := range cfg.Sources {
		src := newSource(s)
		m.sources[s.Topic] = src
		if g := GoalTopic(s.Topic); s.Kind == KindActionlib && g != "" {
			m.goalSources[g] = src
		}
		m.order = append(m.order, src)
		m.open[src] = map[string]openSeg{}
	}
	go m.run()
	return m, nil
}

// PutState queues one event, making Machine a capture.StateSink; it
// never blocks (a full queue drops the event and counts it). Safe from
// any goroutine; after Close it drops.
func (m *Machine) PutState(ev capture.StateEvent) {
	if m.ctx.Err() != nil {
		m.dropped.Add(1)
		return
	}
	n := int64(max(ev.Bytes, 0))
	if m.queued.Add(n) > m.cfg.QueueBytes {
		m.queued.Add(-n)
		m.dropped.Add(1)
		return
	}
	select {
	case m.events <- ev:
	default:
		m.queued.Add(-n)
		m.dropped.Add(1)
	}
}

// dequeued releases an event's bytes from the queue's budget.
func (m *Machine) dequeued(ev capture.StateEvent) capture.StateEvent {
	m.queued.Add(-int64(max(ev.Bytes, 0)))
	return ev
}

// Stats returns a snapshot of the counters.
func (m *Machine) Stats() Stats {
	m.mu.Lock()
	s := m.st
	m.mu.Unlock()
	s.Dropped = m.dropped.Load()
	return s
}

// Flush waits until every event queued before it has been handled, or
// ctx ends.
func (m *Machine) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	select {
	case m.flush <- ch:
	case <-m.done:
		return errors.New("fsm: closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close handles what is queued, closes the open episode as interrupted
// (its open segments too) and stops the run loop. It does not close the
// store. Its error is only that of the shutdown's own writes (the open
// episode could not be closed, or segments kept in memory while the
// store could not write are lost): earlier failures were reported when
// they happened (Stats, the log) and do not make a clean stop fail.
func (m *Machine) Close() error {
	m.closed.Do(func() { m.cancel() })
	<-m.done
	return m.closeErr
}

func (m *Machine) run() {
	defer close(m.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case ev := <-m.events:
			m.handle(m.dequeued(ev))
		case ch := <-m.flush:
			m.drainQueued()
			close(ch)
		case r := <-m.advance:
			m.drainQueued()
			m.advanceTo(r.now)
			close(r.done)
		case <-tick.C:
			m.checkMaxDuration(m.now())
			m.retryStore()
		case <-m.ctx.Done():
			m.drainQueued()
			m.shutdown()
			return
		}
	}
}

// shutdown closes the open episode; a store failure doing so is Close's
// error.
func (m *Machine) shutdown() {
	before := m.Stats().StoreErrors
	m.finishClosing()
	if m.w != nil {
		m.closeEpisode(m.now(), episode.Interrupted, episode.OutcomeOf(episode.EndShutdown), episode.EndShutdown)
	}
	if c := m.closing; c != nil {
		n := c.w.Pending()
		c.w.Abandon()
		m.closing = nil
		m.closeErr = fmt.Errorf("fsm: the episode store cannot write: episode %s left open with %d closed segments lost "+
			"(the next start recovers it as interrupted): %s", c.w.ID(), n, m.Stats().LastError)
		return
	}
	if st := m.Stats(); st.StoreErrors != before {
		m.closeErr = fmt.Errorf("fsm: closing the open episode at shutdown: %s (the next start recovers it as interrupted)", st.LastError)
	}
}

func (m *Machine) drainQueued() {
	for {
		select {
		case ev := <-m.events:
			m.handle(m.dequeued(ev))
		default:
			return
		}
	}
}

func (m *Machine) count(f func(*Stats)) {
	m.mu.Lock()
	f(&m.st)
	m.mu.Unlock()
}

func (m *Machine) storeErr(err error) {
	if err != nil {
		m.count(func(s *Stats) { s.StoreErrors++; s.LastError = err.Error() })
	}
}

// handle is the whole state machine for one event.
func (m *Machine) handle(ev capture.StateEvent) {
	m.count(func(s *Stats) { s.Events++ })
	src := m.sources[ev.Topic]
	stamp := m.advanceTime(src, ev.Stamp)
	m.checkMaxDuration(stamp)
	if gs := m.goalSources[ev.Topic]; gs != nil && src == nil {
		m.goal(gs, stamp, ev.Value)
		return
	}
	switch ev.Topic {
	case m.cfg.InstructionTopic:
		m.instructionEvent(ev)
		return
	case m.cfg.RecordingTopic:
		if !m.recordingEvent(ev.Value) {
			m.count(func(s *Stats) { s.Bad++ })
			return
		}
		m.reconcile(stamp, episode.EndRecording)
		return
	}
	if src == nil {
		m.count(func(s *Stats) { s.Unknown++ })
		return
	}
	m.sourceEvent(src, stamp, ev)
}

// advanceTime returns the time an event from src (nil: not an FSM
// source) counts at, and moves the source's and the machine's latest
// stamps to it; a source's clock jumping back by more than
// ClockResetAfter resets the episode first.
func (m *Machine) advanceTime(src *source, stamp time.Time) time.Time {
	if src != nil {
		if src.last.Sub(stamp) > ClockResetAfter {
			m.clockReset(src, stamp)
		}
		// A source's time never runs backwards; sources may disagree
		// with each other slightly (header stamps vs receive times).
		if stamp.Before(src.last) {
			stamp = src.last
		}
		src.last = stamp
	}
	if stamp.After(m.lastStamp) {
		m.lastStamp = stamp
	}
	return stamp
}

// instructionEvent takes the episode's instruction from the instruction
// topic, capped at MaxInstructionBytes.
func (m *Machine) instructionEvent(ev capture.StateEvent) {
	s, ok := stringValue(ev.Value, "data")
	if !ok {
		m.count(func(s *Stats) { s.Bad++ })
		return
	}
	if c, cut := clip(s, MaxInstructionBytes); cut {
		s = c
		m.truncated(ev.Topic, "instruction", MaxInstructionBytes)
	}
	m.instruction = s
	if m.w != nil {
		m.storeErr(m.w.SetInstruction(s))
	}
}

// sourceEvent interprets one message of an FSM source: a change of its
// active states is a transition (segments open and close), anything else
// a heartbeat.
func (m *Machine) sourceEvent(src *source, stamp time.Time, ev capture.StateEvent) {
	u, err := src.interpret(ev.Value)
	if err != nil {
		m.count(func(s *Stats) { s.Bad++; s.LastError = fmt.Sprintf("%s: %v", ev.Topic, err) })
		return
	}
	u, cut := clipUpdate(u)
	if cut {
		m.truncated(src.cfg.Topic, "state name, label, path or goal id", MaxLabelBytes)
	}
	m.seenEvent = true
	changed := !sameKeys(src.cur, u.active)
	if src.cfg.Kind == KindActionlib {
		changed = changed || u.raw != ""
	} else {
		changed = changed || u.raw != src.raw
	}
	prevRaw := src.raw
	if changed {
		src.prev = prevRaw
	}
	src.cur = u.active
	if src.cfg.Kind != KindActionlib || u.raw != "" {
		src.raw = u.raw
	}
	if m.w != nil {
		if changed {
			m.syncSource(src, stamp, prevRaw, u.raw, u.ended)
		} else {
			m.heartbeat(src, stamp)
		}
	}
	m.reconcile(stamp, episode.EndIdle)
}

func sameKeys(a, b map[string]active) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w.label != v.label {
			return false
		}
	}
	return true
}
