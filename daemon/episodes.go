package daemon

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

// sheetRunner owns the sheet sessions: it opens one per episode, drives
// its builders with the capture clock, queues labeling sheets as segments
// close, and finishes the session when the episode ends. Without an FSM
// (session true) one session runs from the first clock reading. It
// belongs to one goroutine: the live sheet loop, or the replay loop.
type sheetRunner struct {
	d        *Daemon
	storeDir string
	session  bool
	recipe   sheet.Recipe
	cur      *sheetSession
	// The open session's episode (session true) and when the store last
	// refused to begin one (zero: it did not).
	sessionW      *epstore.Writer
	sessionFailed time.Time
}

func (d *Daemon) newSheetRunner(storeDir string, session bool) *sheetRunner {
	return &sheetRunner{d: d, storeDir: storeDir, session: session, recipe: d.recipe()}
}

func (r *sheetRunner) open(id, dir string, start time.Time) {
	d := r.d
	s, err := newSheetSession(id, dir, start, r.recipe, d.topo.Load().cams, d.log.With("episode", id), &d.stats, d.sheetBuilt, d.out, d.buildTime.Observe)
	if err != nil {
		d.log.Error("daemon: no sheets for this episode", "episode", id, "err", err)
		return
	}
	r.cur = s
}

func (r *sheetRunner) handle(ev episodeEvent) {
	d := r.d
	d.status.apply(ev)
	cur := r.cur
	switch ev.kind {
	case episodeBegan:
		if cur != nil {
			cur.finish(ev.manifest.Start)
		}
		d.stats.episodes.Add(1)
		d.ship("episode start", d.out.EpisodeStarted(ev.manifest))
		r.open(ev.manifest.ID, filepath.Join(r.storeDir, ev.manifest.ID), ev.manifest.Start)
	case stateChanged:
		// Nothing to ship: state changes are ground truth, which travels
		// as segments, never in the snippets beside the sheets.
	case segmentClosed:
		d.stats.segments.Add(1)
		d.ship("segment", d.out.Segment(ev.manifest, ev.segment))
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
		d.ship("episode end", d.out.EpisodeEnded(d.judge(r.storeDir, ev.manifest)))
	}
}

// ship logs a failure to put a message in the outbox (a disk problem;
// the uplink counts each one in edged_uplink_errors_total): the first of
// a run of failures, and the first success after it, not every message.
func (d *Daemon) ship(what string, err error) {
	switch {
	case err != nil && d.shipFailing.CompareAndSwap(false, true):
		d.log.Error("daemon: not queued for upload (further failures are counted in edged_uplink_errors_total, not logged)",
			"what", what, "err", err)
	case err == nil && d.shipFailing.CompareAndSwap(true, false):
		d.log.Info("daemon: queueing for upload works again", "what", what)
	}
}

// drain handles every event already queued.
func (r *sheetRunner) drain() {
	for {
		select {
		case ev := <-r.d.events:
			r.handle(ev)
		default:
			return
		}
	}
}

// tick advances the open session to now (the capture clock).
func (r *sheetRunner) tick(now time.Time) {
	if r.session {
		r.tickSession(now)
	}
	if r.cur != nil {
		r.cur.advance(now)
	}
}

// stop drains the events, then finishes the open session at now (or at
// its start when the clock never ran).
func (r *sheetRunner) stop(now time.Time, ok bool) {
	r.drain()
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

// sheetLoop is the live driver of a sheetRunner: events as they come, the
// capture clock every interval/5. It returns when ctx ends, after
// draining pending events and finishing the open session.
func (d *Daemon) sheetLoop(ctx context.Context, storeDir string, clock func() (time.Time, bool), session bool) {
	r := d.newSheetRunner(storeDir, session)
	tick := time.NewTicker(r.recipe.Interval / 5)
	defer tick.Stop()
	for {
		select {
		case ev := <-d.events:
			r.handle(ev)
		case <-tick.C:
			d.loopAlive()
			if now, ok := clock(); ok {
				r.tick(now)
			}
		case <-ctx.Done():
			r.stop(clock())
			return
		}
	}
}

// sheetBuilt is called by the sheet session for every contact sheet stored.
func (d *Daemon) sheetBuilt(camera string, index int, jpeg []byte) {
	d.status.sheetBuilt(camera, index, jpeg, time.Now())
}

// recipe maps the config's sheet section onto the sheet package's recipe.
func (d *Daemon) recipe() sheet.Recipe {
	return d.cfg.Sheet.Recipe()
}
