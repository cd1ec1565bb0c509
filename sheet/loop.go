package sheet

import (
	"context"
	"log/slog"
	"time"
)

// Loop is an owned goroutine that drives a Builder with a clock: every
// period it calls Advance(clock()). Close stops it and waits.
type Loop struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// StartLoop starts driving b. clock is the capture clock (wall time or
// /clock); period is how often ticks are checked (interval/5 is plenty).
// Advance errors (a failing Emit) are logged and the loop goes on.
func StartLoop(ctx context.Context, b *Builder, clock func() time.Time, period time.Duration, log *slog.Logger) *Loop {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &Loop{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := b.Advance(clock()); err != nil {
					log.Warn("sheet: advance", "camera", b.cfg.Camera, "err", err)
				}
			}
		}
	}()
	return l
}

// Close stops the loop and waits for it. It does not Finish the builder:
// the owner calls Finish(end) after Close so the last sheet is emitted.
func (l *Loop) Close() {
	l.cancel()
	<-l.done
}
