package fsm

import (
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// Episodes: with a recording topic (std_msgs/Bool true while recording,
// or std_msgs/String holding an episode id, empty between episodes) the
// topic alone decides; otherwise, when any source has idle states, an
// episode runs while such a source is outside them (idle states never
// become segments); otherwise one episode runs from the first event. Every
// episode is cut at MaxDuration (open segments close as interrupted, and a
// new episode starts at once if the conditions still hold). Time that
// runs backwards by more than ClockResetAfter on one source (rosbag play
// --loop under /use_sim_time, a restarted simulator) closes the open
// episode at the last time seen, as interrupted with end reason
// clock_reset, and every source's time starts over: each loop is an
// episode of its own (counted in Stats.ClockResets). The instruction
// comes from Config.Instruction or the instruction topic
// (std_msgs/String). Raw transitions are recorded beside the segments;
// heartbeats at most every HeartbeatEvery so that a crash loses at most
// that much of an open segment's end.

// wantEpisode says whether an episode should be open now.
func (m *Machine) wantEpisode() bool {
	if m.cfg.RecordingTopic != "" {
		return m.recording
	}
	idleMode := false
	for _, s := range m.order {
		if len(s.idle) > 0 {
			idleMode = true
			if s.raw != "" && !s.idle[s.raw] {
				return true
			}
		}
	}
	return !idleMode && m.seenEvent
}

// reconcile opens or closes the episode to match wantEpisode.
func (m *Machine) reconcile(stamp time.Time, reason string) {
	want := m.wantEpisode()
	switch {
	case want && m.w == nil:
		m.beginEpisode(stamp)
	case !want && m.w != nil:
		m.closeEpisode(stamp, episode.Completed, episode.Completed, reason)
	}
}

func (m *Machine) beginEpisode(stamp time.Time) {
	if m.finishClosing(); m.closing != nil {
		return // the previous episode still waits for the store
	}
	if !m.beginFailed.IsZero() && time.Since(m.beginFailed) < retryEvery {
		return // the store failed just now: the run loop's tick retries
	}
	w, err := m.store.Begin(epstore.Begin{Robot: m.cfg.Robot, Name: m.recName, Instruction: m.instruction, Start: stamp})
	if err != nil {
		m.beginFailed = time.Now()
		m.storeErr(err)
		return
	}
	m.beginFailed = time.Time{}
	m.w = w
	if o := m.cfg.Observer; o != nil {
		o.EpisodeBegan(w.Manifest())
	}
	for _, s := range m.order {
		m.syncSource(s, stamp, s.prev, s.raw, nil)
	}
}

// closeEpisode closes every open segment with segOutcome, then the
// episode. When the store cannot write, the episode waits in m.closing
// (with its segments kept in memory) until retryStore closes it.
func (m *Machine) closeEpisode(stamp time.Time, segOutcome, epOutcome, reason string) {
	for _, s := range m.order {
		keys := sortedKeys(m.open[s])
		for _, k := range keys {
			m.closeSegment(s, k, stamp, segOutcome)
		}
	}
	m.closing = &closing{w: m.w, end: stamp, outcome: epOutcome, reason: reason}
	m.w = nil
	m.finishClosing()
}

// clockReset handles time that jumped backwards (a looped bag, a
// restarted simulator, a reset /clock): the open episode closes at the
// last time seen before the jump, as interrupted, and every source's
// time starts over, so the next episode is recorded in the new time
// instead of being clamped to the old one (0-second episodes at the
// end of the first loop). The sources keep their current states: the
// event that showed the jump opens the next episode if one is wanted.
func (m *Machine) clockReset(src *source, stamp time.Time) {
	m.count(func(s *Stats) { s.ClockResets++ })
	m.cfg.Logger.Warn("fsm: time jumped backwards; closing the open episode and starting over in the new time",
		"topic", src.cfg.Topic, "from", m.lastStamp, "to", stamp)
	if m.w != nil {
		m.closeEpisode(m.lastStamp, episode.Interrupted, episode.OutcomeOf(episode.EndClockReset), episode.EndClockReset)
	}
	for _, s := range m.order {
		s.last, s.lastBeat = time.Time{}, 0
	}
	m.lastStamp = stamp
}

// checkMaxDuration cuts the open episode at MaxDuration and starts the
// next one at the same instant when the conditions still hold, as often
// as now is past the limit (a clock that jumped, Advance over a quiet
// stretch of a recording). Each begin starts later, so it ends.
func (m *Machine) checkMaxDuration(now time.Time) {
	for m.w != nil {
		limit := m.w.Start().Add(m.cfg.MaxDuration)
		if now.Before(limit) {
			return
		}
		m.closeEpisode(limit, episode.Interrupted, episode.OutcomeOf(episode.EndMaxDuration), episode.EndMaxDuration)
		if !m.wantEpisode() {
			return
		}
		m.beginEpisode(limit)
	}
}
