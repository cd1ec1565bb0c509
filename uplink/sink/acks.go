package sink

import (
	"context"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/wire"
)

// completed queues the acknowledgement of an episode that a message made
// complete.
func (s *Sink) completed(robot, episodeID string) {
	s.completes.Add(1)
	s.log.Info("sink: episode complete", "robot", robot, "episode", episodeID)
	if s.cfg.OnComplete != nil {
		s.cfg.OnComplete(robot, episodeID)
	}
	s.mu.Lock()
	s.acks = append(s.acks, wire.Ack{Robot: robot, Episode: episodeID, Time: s.now().UnixNano()})
	s.mu.Unlock()
	select {
	case s.ackNotify <- struct{}{}:
	default:
	}
}

// publishAcks publishes the queued acknowledgements, oldest first, each
// waiting for the broker's PUBACK; what fails stays queued for the next
// try. One whose PUBACK is only slow (a broker or a sink under load) is
// waited for again on the next try, not published again: the robot
// would get it twice. It runs in the session loop, never in paho's
// message handler (waiting for a PUBACK there would stall paho's
// ordered delivery).
func (s *Sink) publishAcks(ctx context.Context, c mqtt.Client) {
	for ctx.Err() == nil {
		s.mu.Lock()
		if len(s.acks) == 0 {
			s.mu.Unlock()
			return
		}
		a := s.acks[0]
		s.mu.Unlock()
		p := s.ackSent
		if p.t == nil || p.c != c || p.a != a {
			b, err := a.MarshalMsg(nil)
			if err != nil {
				s.log.Error("sink: ack not encoded", "err", err)
				return
			}
			p = sentAck{a: a, c: c, t: c.Publish(wire.AckTopic(s.cfg.Prefix, a.Robot), 1, false, b)}
			s.ackSent = p
		}
		if !p.t.WaitTimeout(s.ackWait) {
			s.log.Warn("sink: ack not confirmed by the broker yet; waiting again", "robot", a.Robot, "episode", a.Episode)
			return
		}
		s.ackSent = sentAck{}
		if err := p.t.Error(); err != nil {
			s.log.Warn("sink: ack not published; retrying", "robot", a.Robot, "episode", a.Episode, "err", err)
			return
		}
		s.mu.Lock()
		if len(s.acks) > 0 && s.acks[0] == a {
			s.acks = s.acks[1:]
		}
		s.mu.Unlock()
		s.acked.Add(1)
	}
}

// sentAck is the acknowledgement published on client c and not yet
// confirmed (t). Only the session loop uses it.
type sentAck struct {
	a wire.Ack
	c mqtt.Client
	t mqtt.Token
}
