package sink

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Acknowledgements across crashes. When a message makes an episode
// complete, the sink records the acknowledgement in the store, under
//
//	.sink/acks/ROBOT/EPISODE      the wire.Ack, as published
//
// before the message is acknowledged to the broker, and removes it after
// the ack's PUBACK. A sink queues the markers it finds when it starts
// (all of them without a Group; with one, those older than ackStale,
// since a peer may be publishing the fresh ones) and every ackScanEvery
// those older than ackStale, so an ack queued in a sink that crashed is
// published by the next sink to start or by a peer. In that crash case
// a robot may get one ack twice, which it takes as once (marking an
// episode uploaded is idempotent); the normal path publishes once.
const acksDir = ".sink/acks/"

const (
	ackStale     = time.Minute     // a marker this old is no longer its sink's alone
	ackScanEvery = 3 * time.Minute // how often the session loop looks for such markers
)

func ackName(robot, episodeID string) string { return acksDir + robot + "/" + episodeID }

// completed records and queues the acknowledgement of an episode that a
// message made complete. It runs before the message is acknowledged to
// the broker, so the marker is durable first; a marker that could not be
// written leaves the ack in memory only (as redelivering the message
// would not complete the episode again), which is logged.
func (s *Sink) completed(robot, episodeID string) {
	s.completes.Add(1)
	s.log.Info("sink: episode complete", "robot", robot, "episode", episodeID)
	if s.cfg.OnComplete != nil {
		s.cfg.OnComplete(robot, episodeID)
	}
	a := wire.Ack{Robot: robot, Episode: episodeID, Time: s.now().UnixNano()}
	if b, err := a.MarshalMsg(nil); err != nil {
		s.log.Error("sink: ack not encoded", "err", err)
	} else if _, err := s.store.Put(ackName(robot, episodeID), b, episode.Cond{}); err != nil {
		s.log.Warn("sink: acknowledgement not recorded in the store; it is lost if this sink stops before publishing it "+
			"(the robot then keeps the episode until its retention); check the store", "robot", robot, "episode", episodeID, "err", err)
	}
	s.queueAck(a)
}

// queueAck queues a unless an ack of its episode is queued already.
func (s *Sink) queueAck(a wire.Ack) {
	s.mu.Lock()
	for _, q := range s.acks {
		if q.Robot == a.Robot && q.Episode == a.Episode {
			s.mu.Unlock()
			return
		}
	}
	s.acks = append(s.acks, a)
	s.mu.Unlock()
	select {
	case s.ackNotify <- struct{}{}:
	default:
	}
}

// scanAcks queues the acknowledgements recorded in the store at least
// minAge ago (by their time) and not queued here already. A marker that
// is not an acknowledgement is logged and left alone.
func (s *Sink) scanAcks(minAge time.Duration) {
	list, err := s.store.List(acksDir)
	if err != nil {
		s.log.Warn("sink: recorded acknowledgements not listed; trying again later", "err", err)
		return
	}
	now := s.now()
	for _, f := range list {
		b, _, err := s.store.Get(f.Name, wire.MaxAck)
		if errors.Is(err, fs.ErrNotExist) {
			continue // published and removed meanwhile
		}
		if err != nil {
			s.log.Warn("sink: recorded acknowledgement not read; trying again later", "name", f.Name, "err", err)
			continue
		}
		a, err := wire.DecodeAck(b)
		if err == nil && ackName(a.Robot, a.Episode) != f.Name {
			err = errors.New("names another episode")
		}
		if err != nil {
			s.log.Warn("sink: not an acknowledgement in the acknowledgements area; remove it", "name", f.Name, "err", err)
			continue
		}
		if now.Sub(time.Unix(0, a.Time)) >= minAge {
			s.queueAck(*a)
		}
	}
}

// ackWindow bounds the acknowledgements published and not yet
// confirmed by the broker.
const ackWindow = 64

// publishAcks publishes the queued acknowledgements, oldest first, up to
// ackWindow at once, then waits for their PUBACKs and removes each
// confirmed one's marker from the store; what fails stays queued for the
// next try. One whose PUBACK is only slow (a broker or a sink under load)
// is waited for again on the next try, not published again: the robot
// would get it twice. (They were published one at a time, each waiting
// for its PUBACK; a saturated sink reads its PUBACKs late, behind the
// messages it is handed, so its acks fell minutes behind and peers took
// their markers as a crashed sink's and published them again.) It runs
// in the session loop, never in paho's message handler (waiting for a
// PUBACK there would stall paho's ordered delivery).
func (s *Sink) publishAcks(ctx context.Context, c mqtt.Client) {
	for ctx.Err() == nil {
		s.mu.Lock()
		window := slices.Clone(s.acks[:min(len(s.acks), ackWindow)])
		s.mu.Unlock()
		if len(window) == 0 {
			return
		}
		for _, a := range window {
			if p, ok := s.ackSent[a]; ok && p.c == c {
				continue // in flight on this connection: wait for it
			}
			b, err := a.MarshalMsg(nil)
			if err != nil {
				s.log.Error("sink: ack not encoded", "err", err)
				return
			}
			s.ackSent[a] = sentAck{c: c, t: c.Publish(wire.AckTopic(s.cfg.Prefix, a.Robot), 1, false, b)}
		}
		if s.confirmAcks(window) == 0 {
			return
		}
	}
}

// confirmAcks waits up to ackWait for the PUBACKs of window (published,
// oldest first) and dequeues each confirmed one; it returns how many
// were (publishAcks goes on while some are). The rest are tried again:
// the slow ones waited for, the refused ones published again.
func (s *Sink) confirmAcks(window []wire.Ack) (confirmed int) {
	timeout := time.NewTimer(s.ackWait)
	defer timeout.Stop()
	late := false
	for _, a := range window {
		p := s.ackSent[a]
		if !late {
			select {
			case <-p.t.Done():
			case <-timeout.C:
				late = true
			}
		}
		if late {
			select {
			case <-p.t.Done(): // confirmed meanwhile, though an older one was not
			default:
				continue
			}
		}
		delete(s.ackSent, a)
		if err := p.t.Error(); err != nil {
			s.log.Warn("sink: ack not published; retrying", "robot", a.Robot, "episode", a.Episode, "err", err)
			continue
		}
		s.dequeueAck(a)
		confirmed++
	}
	if late {
		s.log.Warn("sink: acks not confirmed by the broker yet; waiting again", "queued", len(window))
	}
	return confirmed
}

// dequeueAck drops the confirmed acknowledgement a from the queue and its
// marker from the store.
func (s *Sink) dequeueAck(a wire.Ack) {
	s.mu.Lock()
	if i := slices.Index(s.acks, a); i >= 0 {
		s.acks = slices.Delete(s.acks, i, i+1)
	}
	s.mu.Unlock()
	s.acked.Add(1)
	if err := s.store.Delete(ackName(a.Robot, a.Episode)); err != nil {
		s.log.Warn("sink: published acknowledgement not removed from the store; a sink may publish it again "+
			"(harmless: the robot takes it once); check the store", "robot", a.Robot, "episode", a.Episode, "err", err)
	}
}

// sentAck is an acknowledgement published on client c and not yet
// confirmed (t). Only the session loop uses them (Sink.ackSent).
type sentAck struct {
	c mqtt.Client
	t mqtt.Token
}
