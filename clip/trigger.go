package clip

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// Trigger accepts t: it returns the clip's name at once and a channel
// closed once the clip is written or refused (then Result says which).
// A clip is refused at once (the channel already closed) when one of
// its kind was accepted less than min_interval before on the stream
// clock, when it has no episode, or when maxPending wait already; each
// refusal is logged and counted. Safe from any goroutine; never blocks
// on a clip being written.
func (s *Stage) Trigger(t Trigger) (*Pending, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Time.IsZero() {
		t.Time = s.now
	}
	if t.Episode.Dir == "" {
		t.Episode, _ = s.hist.Episode()
	}
	if len(t.Reason) > MaxReasonBytes {
		t.Reason = strings.ToValidUTF8(t.Reason[:MaxReasonBytes], "")
	}
	j := &job{trig: t, name: episode.ClipName(t.Time, string(t.Kind)), from: t.Time.Add(-s.cfg.Pre),
		to: t.Time.Add(s.cfg.Post), deadline: time.Now().Add(s.opts.MaxWait), done: make(chan struct{})}
	j.res = Result{Name: j.name, Episode: t.Episode.ID}
	if reason, why := s.refusal(t); reason != "" {
		s.skipLocked(j, reason, why)
		return &Pending{j: j}, j.res.Err
	}
	s.last[t.Kind] = t.Time
	s.pending = append(s.pending, j)
	s.stats.Pending = len(s.pending)
	s.log.Info("clip: triggered", "name", j.name, "episode", t.Episode.ID, "kind", t.Kind, "reason", t.Reason)
	s.signal()
	return &Pending{j: j}, nil
}

// refusal says why t gets no clip ("" when it does).
func (s *Stage) refusal(t Trigger) (reason, why string) {
	switch {
	case s.closed:
		return SkipShutdown, "the clip stage is closed"
	case t.Episode.Dir == "":
		return SkipNoEpisode, "no episode began yet: a clip belongs to one"
	case t.Time.IsZero():
		return SkipNoEpisode, "the stream clock has not started: no frame or /clock message yet"
	case len(s.pending) >= maxPending:
		return SkipBusy, fmt.Sprintf("%d clips wait for their windows already", maxPending)
	}
	if last, ok := s.last[t.Kind]; ok && t.Time.Equal(last) {
		return SkipRateLimit, fmt.Sprintf("a %s clip of the same time exists (its name)", t.Kind)
	}
	if last, ok := s.last[t.Kind]; ok && !t.Time.Before(last) && t.Time.Sub(last) < s.cfg.MinInterval {
		return SkipRateLimit, fmt.Sprintf("a %s clip was triggered %s before (clips.min_interval %s)", t.Kind,
			t.Time.Sub(last), s.cfg.MinInterval)
	}
	return "", ""
}

// skipLocked refuses j: logged, counted, its waiters released.
func (s *Stage) skipLocked(j *job, reason, why string) {
	s.stats.Skipped[reason]++
	j.res.Skipped = reason
	j.res.Err = fmt.Errorf("%w: %s: %s", ErrSkipped, reason, why)
	s.log.Warn("clip: not written", "name", j.name, "episode", j.res.Episode, "kind", j.trig.Kind, "skipped", reason, "why", why)
	close(j.done)
}

// Pending is an accepted (or refused) trigger's clip.
type Pending struct{ j *job }

// Name is the clip's file name.
func (p *Pending) Name() string { return p.j.name }

// Done is closed once the clip is written or refused.
func (p *Pending) Done() <-chan struct{} { return p.j.done }

// Result is the clip's outcome once Done is closed; before, its name
// and episode only.
func (p *Pending) Result() Result {
	select {
	case <-p.j.done:
		return p.j.res
	default:
		return Result{Name: p.j.name, Episode: p.j.trig.Episode.ID}
	}
}

// Wait waits for the clip or ctx.
func (p *Pending) Wait(ctx context.Context) (Result, error) {
	select {
	case <-p.j.done:
		return p.j.res, p.j.res.Err
	case <-ctx.Done():
		return p.Result(), ctx.Err()
	}
}

// Advance moves the stream clock to now: the clips whose window ended
// are written (by the stage's goroutine; by the caller's with
// Options.Sync). Never blocks on a write without Sync.
func (s *Stage) Advance(now time.Time) {
	s.mu.Lock()
	if now.After(s.now) || now.Before(s.now.Add(-s.cfg.Pre)) { // a reset clock moves back
		s.now = now
	}
	s.mu.Unlock()
	if s.opts.Sync {
		s.writeDue(false)
		return
	}
	s.signal()
}

// Flush writes every pending clip now with what the rings hold (the end
// of a replay: the clock moves no further).
func (s *Stage) Flush() {
	if s.opts.Sync {
		s.writeDue(true)
	}
}

func (s *Stage) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// due takes the pending clips whose window ended on the stream clock,
// or whose wait ran out (all of them with force).
func (s *Stage) due(force bool) []*job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due, keep []*job
	wall := time.Now()
	for _, j := range s.pending {
		if force || !s.now.Before(j.to.Add(settle)) || !s.opts.Sync && wall.After(j.deadline) {
			due = append(due, j)
		} else {
			keep = append(keep, j)
		}
	}
	s.pending = keep
	s.stats.Pending = len(keep)
	return due
}

func (s *Stage) writeDue(force bool) {
	for _, j := range s.due(force) {
		s.finish(j, s.write(j))
	}
}

// loop is the stage's goroutine: it writes clips as they fall due.
func (s *Stage) loop(ctx context.Context) {
	defer close(s.done)
	// never unlocked: the thread ends with the goroutine (doc.go, Priority)
	if nice, err := lowerWriterPriority(); err != nil {
		s.log.Warn("clip: clips are written at capture's priority", "err", err)
	} else {
		s.log.Debug("clip: the writer thread runs at a lower priority", "nice", nice)
	}
	tick := time.NewTicker(time.Second) // for MaxWait when the clock stops
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		}
		for _, j := range s.due(false) {
			if ctx.Err() != nil {
				s.mu.Lock()
				s.skipLocked(j, SkipShutdown, "edged stopped while it waited")
				s.mu.Unlock()
				continue
			}
			if testHookWriting != nil {
				testHookWriting()
			}
			s.finish(j, s.write(j))
		}
	}
}

// Close stops the goroutine (waiting for the clip being written) and
// refuses the clips still waiting for their window. Safe to call twice.
func (s *Stage) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	<-s.done
	s.mu.Lock()
	for _, j := range s.pending {
		s.skipLocked(j, SkipShutdown, "edged stopped before its window ended")
	}
	s.pending = nil
	s.stats.Pending = 0
	s.mu.Unlock()
	s.enc.enc.Close()
}
