package sink

import (
	"context"
	"fmt"
	"slices"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/wire"
)

// Repair. A broker may acknowledge a robot's message and not deliver it
// (a restart without persistence while no sink is subscribed, an ACL, a
// session queue that overflowed), and the robot, which keeps what it
// shipped until the episode is acknowledged (uplink's repair.go), can
// send it again. So when an end manifest arrives (the first time, or
// again: the robot repeats it while it waits) and the episode is not
// complete, the sink follows the episode: RepairAfter later, if it is
// still incomplete, it publishes a wire.Repair naming what it lacks
// (receive.Receiver.Lacking) on PREFIX/ROBOT/ack/repair, then again
// RepairAfter x 2^n later (at most maxRepairWait), MaxRepairAsks times,
// then leaves it to the robot's next end manifest. An end manifest of an
// episode the store holds complete is acknowledged again: the robot did
// not get the acknowledgement.
//
// Any sink of a group may follow an episode and any may take the pieces
// the robot sends again: each looks at the shared store.

const (
	maxRepairWait = 10 * time.Minute
	// maxFollowed bounds the episodes a sink follows; past it the oldest
	// is left to the robot's next end manifest (counted).
	maxFollowed = 10000
	// maxAsksPerTick bounds the store reads of one tick of the session
	// loop.
	maxAsksPerTick = 16
	// endQuiet: an end manifest of an episode that is not followed is
	// looked at (a store read) at most once this long; more are the same
	// end repeated (duplicates cost a robot nothing to send).
	endQuiet = 10 * time.Second
)

// followed is an incomplete episode whose end manifest arrived.
type followed struct {
	robot, episode string
	since          time.Time // when the end arrived (this run)
	next           time.Time // when to look again
	asks           int
}

// endArrived follows an episode whose end manifest arrived (delivered or
// a duplicate) and did not complete it: one held complete is
// acknowledged again, an incomplete one is asked for after RepairAfter.
func (s *Sink) endArrived(robot, episodeID string) {
	if !s.endToLookAt(robot, episodeID) {
		return
	}
	l, completed, err := s.recv.Lacking(robot, episodeID, 0)
	switch {
	case err != nil:
		s.log.Warn("sink: episode state not read; its robot sends the end again", "robot", robot, "episode", episodeID, "err", err)
		return
	case completed:
		s.completed(robot, episodeID)
		return
	case l.Complete && !l.Since.IsZero() && s.now().Sub(l.Since) < endQuiet:
		return // the end that completed it, again: a transport duplicate (the robot waits resend_after before asking)
	case l.Complete:
		s.reacks.Add(1)
		s.log.Info("sink: end manifest of an episode held complete arrived again; acknowledging it again", "robot", robot, "episode", episodeID)
		s.queueAck(queuedAck{Ack: wire.Ack{Robot: robot, Episode: episodeID, Time: s.now().UnixNano()}})
		return
	case !l.Closed:
		return
	}
	s.follow(robot, episodeID)
}

// endToLookAt reports whether an end manifest that arrived needs a look
// at the store: not when the episode is followed (the robot repeated its
// end: it is asked again soon, RepairAfter from now) nor when one was
// looked at under endQuiet ago.
func (s *Sink) endToLookAt(robot, episodeID string) bool {
	now, key := s.now(), robot+"/"+episodeID
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.followed[key]; f != nil {
		f.asks, f.next = 0, now.Add(s.cfg.RepairAfter)
		return false
	}
	if t, ok := s.endLooked[key]; ok && now.Sub(t) < endQuiet {
		return false
	}
	if len(s.endLooked) >= maxFollowed {
		for k, t := range s.endLooked {
			if now.Sub(t) >= endQuiet {
				delete(s.endLooked, k)
			}
		}
		if len(s.endLooked) >= maxFollowed {
			return false // a flood of ends: the robots send theirs again later
		}
	}
	s.endLooked[key] = now
	return true
}

// following reports whether the sink follows the episode: a message of
// it that the id log has seen is delivered again all the same (the
// robot sent it because the store lacks it: a store lost while the id
// log was kept); the store's writes are idempotent.
func (s *Sink) following(robot, episodeID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.followed[robot+"/"+episodeID] != nil
}

// follow starts (or restarts, when the robot sent its end again) following
// an incomplete episode.
func (s *Sink) follow(robot, episodeID string) {
	now := s.now()
	key := robot + "/" + episodeID
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.followed[key]
	if f == nil {
		if len(s.followed) >= maxFollowed {
			s.dropOldestFollowed()
		}
		f = &followed{robot: robot, episode: episodeID, since: now}
		s.followed[key] = f
	}
	f.asks, f.next = 0, now.Add(s.cfg.RepairAfter)
}

// dropOldestFollowed forgets the episode followed longest. Called with
// s.mu held.
func (s *Sink) dropOldestFollowed() {
	var oldest *followed
	for _, f := range s.followed {
		if oldest == nil || f.since.Before(oldest.since) {
			oldest = f
		}
	}
	delete(s.followed, oldest.robot+"/"+oldest.episode)
	s.repairsDropped.Add(1)
}

// unfollow stops following an episode (complete).
func (s *Sink) unfollow(robot, episodeID string) {
	s.mu.Lock()
	delete(s.followed, robot+"/"+episodeID)
	s.mu.Unlock()
}

// askRepairs publishes the repair requests that are due (at most
// maxAsksPerTick a call; the rest wait for the next tick). It runs in
// the session loop.
func (s *Sink) askRepairs(ctx context.Context, c mqtt.Client) {
	now := s.now()
	s.mu.Lock()
	var due []*followed
	for _, f := range s.followed {
		if !now.Before(f.next) {
			due = append(due, f)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(due, func(a, b *followed) int { return a.next.Compare(b.next) })
	for _, f := range due[:min(len(due), maxAsksPerTick)] {
		if ctx.Err() != nil {
			return
		}
		s.ask(c, f, now)
	}
}

// ask looks at one followed episode and asks its robot for what it
// lacks, or stops following it.
func (s *Sink) ask(c mqtt.Client, f *followed, now time.Time) {
	l, completed, err := s.recv.Lacking(f.robot, f.episode, wire.MaxRepairPieces)
	switch {
	case err != nil:
		s.log.Warn("sink: incomplete episode not read; trying again", "robot", f.robot, "episode", f.episode, "err", err)
		s.reschedule(f, now.Add(s.cfg.RepairAfter), false)
		return
	case completed:
		s.completed(f.robot, f.episode)
		fallthrough
	case l.Complete || !l.Closed:
		s.unfollow(f.robot, f.episode)
		return
	}
	if f.asks >= s.cfg.MaxRepairAsks {
		s.log.Warn("sink: episode still incomplete after every repair request; its robot sends its end again after its uplink.resend_after",
			"robot", f.robot, "episode", f.episode, "since", f.since.Format(time.RFC3339), "lacks", len(l.Pieces), "more", l.More)
		s.unfollow(f.robot, f.episode)
		return
	}
	req := wire.Repair{Robot: f.robot, Episode: f.episode, Time: now.UnixNano(), More: l.More}
	for _, p := range l.Pieces {
		req.Missing = append(req.Missing, p.String())
	}
	b, err := req.MarshalMsg(nil)
	if err != nil {
		s.log.Error("sink: repair request not encoded", "err", err)
		return
	}
	// Not waited for: a request lost with the connection is sent again
	// at the next ask.
	c.Publish(wire.RepairTopic(s.cfg.Prefix, f.robot), 1, false, b)
	s.repairRequests.Add(1)
	s.log.Info("sink: asking a robot for the pieces of an episode it lacks", "robot", f.robot, "episode", f.episode,
		"lacks", len(req.Missing), "more", l.More, "first", head(req.Missing), "ask", f.asks+1)
	wait := s.cfg.RepairAfter << min(f.asks+1, 16)
	s.reschedule(f, now.Add(min(wait, max(maxRepairWait, s.cfg.RepairAfter))), true)
}

func (s *Sink) reschedule(f *followed, next time.Time, asked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if asked {
		f.asks++
	}
	f.next = next
}

// head is the first piece named, for a log line.
func head(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (of %d)", missing[0], len(missing))
}
