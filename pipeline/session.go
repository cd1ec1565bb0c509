package pipeline

import (
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// Sessions: without an FSM the sheets of a run are kept as episodes of
// the store named episode.SessionName (their kind marker), so that the
// store's retention (episode.keep_bytes, keep_episodes, min_free_bytes)
// bounds them like any episode. A session is cut at episode.max_duration
// (a new one starts at once), so that a long run does not grow one
// directory that retention, which never deletes the open episode, cannot
// touch.

// sessionRetry is the least stream time between two attempts to begin
// a session the store refused (a full disk): each attempt costs a mkdir.
const sessionRetry = time.Second

// openSession begins a session in the store at now and its sheets.
func (r *Runner) openSession(now time.Time) {
	p := r.p
	if !r.sessionFailed.IsZero() && now.Sub(r.sessionFailed) < sessionRetry {
		return
	}
	w, err := p.store.Begin(epstore.Begin{Robot: p.cfg.RobotID, Name: episode.SessionName, Start: now})
	if err != nil {
		if r.sessionFailed.IsZero() {
			p.log.Error("daemon: cannot begin a session in the episode store; retrying every second", "err", err)
		}
		r.sessionFailed = now
		return
	}
	if !r.sessionFailed.IsZero() {
		p.log.Info("daemon: sessions begin again", "session", w.ID())
	}
	r.sessionFailed = time.Time{}
	r.sessionW = w
	r.open(w.ID(), filepath.Join(r.storeDir, w.ID()), now)
}

// closeSession finishes the open session's sheets and closes it in the
// store at end (at its start when the clock never ran: ok false; the
// close applies retention).
func (r *Runner) closeSession(end time.Time, ok bool, reason string) {
	if w := r.sessionW; w != nil && (!ok || end.Before(w.Start())) {
		end = w.Start()
	}
	if r.cur != nil {
		r.cur.finish(end)
		r.cur = nil
	}
	w := r.sessionW
	if w == nil {
		return
	}
	r.sessionW = nil
	if err := w.Close(end, episode.OutcomeOf(reason), reason); err != nil {
		// Left open: the next start closes it as recovered.
		r.p.log.Error("daemon: closing the session in the episode store", "session", w.ID(), "err", err)
		w.Abandon()
	}
}

// tickSession opens a session when none runs and cuts the open one at
// episode.max_duration.
func (r *Runner) tickSession(now time.Time) {
	if w := r.sessionW; w != nil {
		if limit := w.Start().Add(r.p.cfg.Episode.MaxDuration.D()); !now.Before(limit) {
			r.closeSession(limit, true, episode.EndMaxDuration)
		}
	}
	if r.sessionW == nil && len(r.p.topo.Load().cams) > 0 {
		r.openSession(now)
	}
}
