package daemon

import (
	"context"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/episode"
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

// sheetLoop owns the sheet sessions: it opens one per episode, drives its
// builders with the capture clock, queues labeling sheets as segments
// close, and finishes the session when the episode ends. Without an FSM
// (session true) one session runs from the first clock reading. It
// returns when ctx ends, after draining pending events.
func (d *Daemon) sheetLoop(ctx context.Context, storeDir string, clock func() (time.Time, bool), session bool) {
	recipe := d.recipe()
	period := recipe.Interval / 5
	tick := time.NewTicker(period)
	defer tick.Stop()
	var cur *sheetSession
	open := func(id, dir string, start time.Time) {
		s, err := newSheetSession(id, dir, start, recipe, d.topo.Load().cams, d.log.With("episode", id), &d.stats, d.sheetBuilt)
		if err != nil {
			d.log.Error("daemon: no sheets for this episode", "episode", id, "err", err)
			return
		}
		cur = s
	}
	handle := func(ev episodeEvent) {
		d.status.apply(ev)
		switch ev.kind {
		case episodeBegan:
			if cur != nil {
				cur.finish(ev.manifest.Start)
			}
			d.stats.episodes.Add(1)
			open(ev.manifest.ID, filepath.Join(storeDir, ev.manifest.ID), ev.manifest.Start)
		case segmentClosed:
			d.stats.segments.Add(1)
			if cur != nil && cur.id == ev.manifest.ID {
				cur.segmentClosed(ev.segment.Index, ev.segment.Start, ev.segment.End)
			}
		case episodeEnded:
			if cur != nil && cur.id == ev.manifest.ID {
				cur.finish(ev.manifest.End)
				cur = nil
			}
		}
	}
	for {
		select {
		case ev := <-d.events:
			handle(ev)
		case <-tick.C:
			d.loopAlive()
			now, ok := clock()
			if !ok {
				continue
			}
			if cur == nil && session && len(d.topo.Load().cams) > 0 {
				id := "session-" + now.UTC().Format("20060102T150405Z")
				open(id, filepath.Join(d.cfg.DataDir, "sessions", id), now)
			}
			if cur != nil {
				cur.advance(now)
			}
		case <-ctx.Done():
			for drained := false; !drained; {
				select {
				case ev := <-d.events:
					handle(ev)
				default:
					drained = true
				}
			}
			if cur != nil {
				now, ok := clock()
				if !ok {
					now = cur.start
				}
				cur.finish(now)
			}
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
	r := sheet.DefaultRecipe()
	s := d.cfg.Sheet
	r.Interval, r.TileWidth, r.Columns, r.Rows, r.Quality, r.Grace = s.Interval.D(), s.TileWidth, s.Columns, s.Rows, s.Quality, s.Grace.D()
	return r
}
