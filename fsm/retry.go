package fsm

import (
	"time"

	epstore "github.com/edged-robotics/edged/episode/store"
)

// When the episode store cannot write (a full disk), closed segments wait
// in the Writer's memory and an ended episode waits to be closed; the run
// loop retries every second (retryEvery), also beginning the episode
// that could not begin, so recording resumes by itself when space
// returns. Observer hears of segments and ends only once they are
// durable. Close fails only when its own writes fail (segments then lost
// are reported), never with an error from earlier.

// retryEvery is how often a store that cannot write is retried: a failed
// Begin is not retried per message (each attempt costs a mkdir).
const retryEvery = time.Second

// closing is an ended episode whose close the store has not taken yet.
type closing struct {
	w               *epstore.Writer
	end             time.Time
	outcome, reason string
}

// retryStore runs on the loop's tick: it keeps the store's free-space
// floor, writes the segments kept in
// memory, closes an episode that could not close, begins the episode
// that could not begin (recording resumes by itself when space returns),
// and otherwise probes a failing store so that health recovers.
func (m *Machine) retryStore() {
	m.store.KeepFloor()
	m.finishClosing()
	if m.w != nil {
		m.flushPending(m.w)
	}
	if m.w == nil && m.closing == nil && m.wantEpisode() {
		m.beginEpisode(m.now())
	}
	if m.store.Health() != nil {
		_ = m.store.Probe()
	}
}

// flushPending writes w's segments kept in memory and reports them.
func (m *Machine) flushPending(w *epstore.Writer) {
	if w.Pending() == 0 {
		return
	}
	written, err := w.Retry()
	for _, seg := range written {
		m.segmentStored(w, seg)
	}
	m.storeErr(err)
}

// finishClosing tries to close m.closing.
func (m *Machine) finishClosing() {
	c := m.closing
	if c == nil {
		return
	}
	m.flushPending(c.w)
	if err := c.w.Close(c.end, c.outcome, c.reason); err != nil {
		m.storeErr(err)
		return
	}
	m.closing = nil
	if o := m.cfg.Observer; o != nil {
		o.EpisodeEnded(c.w.Manifest())
	}
	m.count(func(s *Stats) { s.Episodes++ })
}
