package replay

import (
	"context"
	"time"

	"github.com/edged-robotics/edged/bag/recording"
	"github.com/edged-robotics/edged/pipeline"
)

// replayMessages feeds every message of the bags, in time order, to the
// replay capture, drives the sheets on the recording's clock, and waits
// for the fsm stage after each of its messages. A gap longer than
// replay.max_gap is not walked through (see endAtGap).
func (r *Replay) replayMessages(ctx context.Context, readers []recording.Recording, runner *pipeline.Runner,
	prog *progress, sum *Summary) (uint64, error) {
	merged := recording.Merge(readers, r.rp.Topics(), func(e error) {
		if ctx.Err() == nil { // an interrupted query is the stop, not damage
			r.damaged(sum, e.Error())
		}
	})
	defer merged.Close()
	fsmTopics := map[string]bool{}
	for _, t := range r.pipe.FSMTopics() {
		fsmTopics[t] = true
	}
	maxGap := r.cfg.Replay.MaxGap.D()
	var next, prev time.Time
	var n uint64
	for merged.Next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m := merged.Message()
		if n > 0 && m.Time.Sub(prev) > maxGap {
			if err := r.endAtGap(ctx, Gap{From: prev, To: m.Time}, runner, sum); err != nil {
				return n, err
			}
			next = time.Time{}
		}
		var err error
		if next, err = r.tickUntil(ctx, runner, next, m.Time); err != nil {
			return n, err
		}
		if err := r.rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time); err != nil {
			return n, err
		}
		n++
		prev = m.Time
		if fsmTopics[m.Conn.Topic] {
			if err := runner.FlushFSM(ctx); err != nil {
				return n, err
			}
		}
		prog.update(m.Time, n)
	}
	if err := ctx.Err(); err != nil { // the bags' iterators stopped on it
		return n, err
	}
	prog.done(n)
	if now, ok := r.rp.Now(); ok {
		runner.Tick(now)
	}
	return n, nil
}

// tickUntil lets the sheets see the clock reach each step from next
// (zero: at) up to at, before the message at at, as the live loop's
// ticker would. It returns the next step.
func (r *Replay) tickUntil(ctx context.Context, runner *pipeline.Runner, next, at time.Time) (time.Time, error) {
	if next.IsZero() {
		next = at
	}
	for !at.Before(next) {
		if err := ctx.Err(); err != nil { // a long stretch within max_gap
			return next, err
		}
		if err := runner.AdvanceFSM(ctx, next); err != nil {
			return next, err
		}
		runner.Tick(next)
		next = next.Add(runner.Step())
	}
	return next, nil
}

// endAtGap ends the recording before a gap as the end of the bags would
// (the open episode or session ends, interrupted, at the capture clock)
// and starts the fsm stage over for what follows, as if it were another
// recording: walking through the gap would cut an episode every
// episode.max_duration, without end for a far-future stamp.
func (r *Replay) endAtGap(ctx context.Context, g Gap, runner *pipeline.Runner, sum *Summary) error {
	sum.Gaps = append(sum.Gaps, g)
	r.log.Warn("replay: a gap in the recording longer than replay.max_gap; the open episode ends before it and the replay goes on after it",
		"gap", g.String(), "replay.max_gap", r.cfg.Replay.MaxGap.D())
	now, ok := r.rp.Now()
	if !ok {
		now = g.From
	}
	if r.pipe.Machine() != nil {
		if err := runner.AdvanceFSM(ctx, now); err != nil {
			return err
		}
		if err := r.pipe.CloseFSM(); err != nil {
			return err
		}
		runner.Drain()
		if err := r.pipe.StartFSM(ctx, nil); err != nil {
			return err
		}
	}
	runner.EndSession(now)
	return nil
}
