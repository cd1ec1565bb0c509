package fsm

import (
	"context"
	"errors"
	"time"
)

// Times are the events' stamps (capture's one clock); episode seconds
// count from the episode's first event. Between events (an episode cut
// at MaxDuration while nothing arrives, the end of the episode open at
// Close) the machine reads Config.Clock, the stream clock its owner
// injects (edged run: capture's), or, without one, the latest stamp as
// moved on by Advance (edged replay: the recording's time). It never
// reads the wall clock for these times, so a replay is deterministic;
// wall time only paces the store retries.

type advanceReq struct {
	now  time.Time
	done chan struct{}
}

// Advance tells the machine that the stream clock reached now (after
// the events queued before it are handled): an episode past MaxDuration
// is cut, and the episode still open at Close ends no earlier than now.
// It returns once that is done, or when ctx ends. A replay calls it as
// the recording's clock moves, so that what happens between events is
// decided by the recording, not by the machine's wall clock.
func (m *Machine) Advance(ctx context.Context, now time.Time) error {
	r := advanceReq{now: now, done: make(chan struct{})}
	select {
	case m.advance <- r:
	case <-m.done:
		return errors.New("fsm: closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// advanceTo moves the clock to now (never back) and applies MaxDuration.
func (m *Machine) advanceTo(now time.Time) {
	if now.After(m.lastStamp) {
		m.lastStamp = now
	}
	m.checkMaxDuration(m.now())
}
