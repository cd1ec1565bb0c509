package pipeline

import (
	"context"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/sheet"
)

type eventKind uint8

const (
	episodeBegan eventKind = iota
	stateChanged
	segmentClosed
	episodeEnded
)

// episodeEvent is what the fsm stage tells the sheet loop.
type episodeEvent struct {
	kind       eventKind
	manifest   episode.Manifest
	segment    episode.Segment
	transition episode.Transition
}

// observer is the fsm stage's Observer: it hands events to the sheet
// loop. The channel is drained by the loop until shutdown ends it, so a
// send waits only while the loop builds a sheet.
type observer struct {
	ctx context.Context
	ch  chan<- episodeEvent
}

func (o observer) send(ev episodeEvent) {
	select {
	case o.ch <- ev:
	case <-o.ctx.Done():
		// Shutting down: fsm.Close still reports the interrupted end, so
		// wait for the loop (which drains until stopped) a little longer.
		select {
		case o.ch <- ev:
		case <-time.After(5 * time.Second):
		}
	}
}

func (o observer) EpisodeBegan(m episode.Manifest) {
	o.send(episodeEvent{kind: episodeBegan, manifest: m})
}
func (o observer) Transition(m episode.Manifest, t episode.Transition) {
	o.send(episodeEvent{kind: stateChanged, manifest: m, transition: t})
}
func (o observer) SegmentClosed(m episode.Manifest, s episode.Segment) {
	o.send(episodeEvent{kind: segmentClosed, manifest: m, segment: s})
}
func (o observer) EpisodeEnded(m episode.Manifest) {
	o.send(episodeEvent{kind: episodeEnded, manifest: m})
}

// Runner owns the sheet sessions: it opens one per episode, drives
// its builders with the stream clock, queues labeling sheets as segments
// close, and finishes the session when the episode ends. Without an FSM
// (a session runner) one session runs from the first clock reading. It
// belongs to one goroutine: the live sheet loop (StartSheetLoop), or a
// replay's loop (NewRunner), which also moves the fsm stage on.
type Runner struct {
	p        *Pipeline
	storeDir string
	session  bool
	recipe   sheet.Recipe
	cur      *sheetSession
	spare    spareBuilders // the builders of the last session, for the next
	// The open session's episode (session true) and when the store last
	// refused to begin one (zero: it did not).
	sessionW      *epstore.Writer
	sessionFailed time.Time
}

// NewRunner is a runner the caller drives (a replay): after Open and
// StartFSM, as sessions when no fsm stage runs.
func (p *Pipeline) NewRunner() *Runner {
	p.startClips()
	return &Runner{p: p, storeDir: p.store.Dir(), session: p.machine == nil, recipe: p.cfg.Sheet.Recipe(), spare: spareBuilders{}}
}

// Step is how far the stream clock moves between two ticks: the live
// loop's period, a fifth of the sampling interval.
func (r *Runner) Step() time.Duration { return r.recipe.Interval / 5 }

func (r *Runner) open(id, dir string, start time.Time) {
	p := r.p
	r.clipEpisode(id, dir)
	s, err := newSheetSession(id, dir, start, r.recipe, p.topo.Load().cams, r.spare, p.log.With("episode", id), &p.stats, p.sheetBuilt, p.out, p.observeBuild)
	if err != nil {
		p.log.Error("daemon: no sheets for this episode", "episode", id, "err", err)
		return
	}
	r.cur = s
}

func (r *Runner) handle(ev episodeEvent) {
	p := r.p
	if ev.kind != episodeBegan {
		p.status.apply(ev)
	}
	defer func() { r.clipEvent(ev) }() // after the episode's own handling (its dir, its sheets, its verdicts)
	cur := r.cur
	switch ev.kind {
	case episodeBegan:
		if cur != nil {
			cur.finish(ev.manifest.Start)
		}
		p.stats.episodes.Add(1)
		p.ship("episode start", p.out.EpisodeStarted(ev.manifest))
		r.open(ev.manifest.ID, filepath.Join(r.storeDir, ev.manifest.ID), ev.manifest.Start)
		// Open on the status only once the clip stage knows the episode:
		// POST /clip is refused (409, no episode) before that, and the
		// status is what an operator and the daemon's tests go by.
		p.status.apply(ev)
	case stateChanged:
		// Nothing to ship: state changes are ground truth, which travels
		// as segments, never in the snippets beside the sheets.
	case segmentClosed:
		p.stats.segments.Add(1)
		p.ship("segment", p.out.Segment(ev.manifest, ev.segment))
		if cur != nil && cur.id == ev.manifest.ID {
			cur.segmentClosed(ev.segment.Index, ev.segment.Start, ev.segment.End)
		}
	case episodeEnded:
		if cur != nil && cur.id == ev.manifest.ID {
			cur.finish(ev.manifest.End)
			r.cur = nil
		}
		// After the last sheets, so that a consumer sees the end last,
		// with the trace checks' verdicts.
		ev.manifest = p.judge(r.storeDir, ev.manifest)
		p.ship("episode end", p.out.EpisodeEnded(ev.manifest))
	}
}

// ship logs a failure to put a message in the outbox (a disk problem;
// the uplink counts each one in edged_uplink_errors_total): the first of
// a run of failures, and the first success after it, not every message.
func (p *Pipeline) ship(what string, err error) {
	switch {
	case err != nil && p.shipFailing.CompareAndSwap(false, true):
		p.log.Error("daemon: not queued for upload (further failures are counted in edged_uplink_errors_total, not logged)",
			"what", what, "err", err)
	case err == nil && p.shipFailing.CompareAndSwap(true, false):
		p.log.Info("daemon: queueing for upload works again", "what", what)
	}
}

// Drain handles every event the fsm stage already queued.
func (r *Runner) Drain() {
	for {
		select {
		case ev := <-r.p.events:
			r.handle(ev)
		default:
			return
		}
	}
}

// Tick advances the open session to now (the stream clock).
func (r *Runner) Tick(now time.Time) {
	if r.session {
		r.tickSession(now)
	}
	if r.cur != nil {
		r.cur.advance(now)
	}
	r.clipTick(now)
}

// Stop drains the events, then finishes the open session at now (or at
// its start when the clock never ran: ok false). The fsm stage is
// closed first (CloseFSM), so that its last events are drained.
func (r *Runner) Stop(now time.Time, ok bool) {
	r.Drain()
	defer r.clipFlush()
	defer r.spare.close()
	if r.session {
		r.closeSession(now, ok, episode.EndShutdown)
		return
	}
	if r.cur != nil {
		if !ok {
			now = r.cur.start
		}
		r.cur.finish(now)
		r.cur = nil
	}
}

// AdvanceFSM moves the fsm stage's clock to now (the recording's time:
// it has no clock of its own in a replay) and handles what that ended
// (an episode cut at max_duration).
func (r *Runner) AdvanceFSM(ctx context.Context, now time.Time) error {
	if r.p.machine == nil {
		return nil
	}
	if err := r.p.machine.Advance(ctx, now); err != nil {
		return err
	}
	r.Drain()
	return nil
}

// FlushFSM waits until the fsm stage handled every message it was given,
// then handles the events they made, so that episodes begin and end in
// the order of the messages.
func (r *Runner) FlushFSM(ctx context.Context) error {
	if err := r.p.machine.Flush(ctx); err != nil {
		return err
	}
	r.Drain()
	return nil
}

// EndSession closes the open session at now as a shutdown would (none
// without sessions): a replay does at a gap in the recording.
func (r *Runner) EndSession(now time.Time) {
	if r.session {
		r.closeSession(now, true, episode.EndShutdown)
	}
}

// StartSheetLoop starts the live driver of a Runner on its own
// goroutine: events as they come, the stream clock every interval/5.
// Stop stops it, after which it drains pending events and finishes the
// open session. Call it after Open and StartFSM.
func (p *Pipeline) StartSheetLoop(ctx context.Context, clock func() (time.Time, bool)) {
	p.live = true
	r := p.NewRunner()
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.loop(ctx, clock)
	}()
	p.stopLoop = func() {
		cancel()
		<-done
	}
}

func (r *Runner) loop(ctx context.Context, clock func() (time.Time, bool)) {
	tick := time.NewTicker(r.Step())
	defer tick.Stop()
	for {
		select {
		case ev := <-r.p.events:
			r.handle(ev)
		case <-tick.C:
			r.p.loopAlive()
			if now, ok := clock(); ok {
				r.Tick(now)
			}
		case <-ctx.Done():
			r.Stop(clock())
			return
		}
	}
}

// sheetBuilt is called by the sheet session for every contact sheet stored.
func (p *Pipeline) sheetBuilt(camera string, index int, jpeg []byte) {
	p.status.sheetBuilt(camera, index, jpeg, time.Now())
}

// observeBuild hands the builder work of a sheet to Options.ObserveSheetBuild.
func (p *Pipeline) observeBuild(seconds float64) {
	if p.opts.ObserveSheetBuild != nil {
		p.opts.ObserveSheetBuild(seconds)
	}
}
