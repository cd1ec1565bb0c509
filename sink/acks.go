package sink

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/uplink/wire"
)

// When a message makes an episode complete (its end manifest arrived and
// everything it announced is held), the sink publishes a wire.Ack on
// PREFIX/ROBOT/ack/uploaded (QoS 1), and the robot marks the episode
// uploaded. When an end manifest arrives and the episode is not complete,
// the sink follows it and, after Config.RepairAfter, asks the robot for
// exactly what it lacks (wire.Repair on PREFIX/ROBOT/ack/repair,
// repair.go); an end of an episode held complete that arrives again is
// acknowledged again. Acknowledgements not yet published wait in memory and are
// retried every second; each is also recorded in the store
// (.sink/acks/, acks.go) before the message is acknowledged, so one
// queued in a sink that crashed is published by the next sink to start
// or by a peer.

// Acknowledgements across crashes. When a message makes an episode
// complete, the sink records the acknowledgement in the store, under
//
//	.sink/acks/SINK/ROBOT/EPISODE   the wire.Ack, as published
//	.sink/alive/SINK                when SINK last said it runs (unix ns)
//
// (SINK: the sink's client id, safeName) before the message is
// acknowledged to the broker, and removes it after the ack's PUBACK. A
// running sink stamps .sink/alive/SINK every aliveEvery. A sink queues
// its own markers when it starts (a crash of its previous run), and at
// its start and every ackScanEvery the markers of sinks whose stamp is
// older than ownerGone (stopped, crashed, cut off): so an ack queued in
// a sink that stopped is published by the next sink to start or by a
// peer, and never by a peer while its sink runs, however far behind
// that sink is. (Peers used to take any marker older than a minute: a
// saturated sink's acks were published twice.) A robot may get one ack
// twice when its sink stopped with the ack in flight, which it takes as
// once (marking an episode uploaded is idempotent). Markers of sinks
// from before SINK (.sink/acks/ROBOT/EPISODE) are taken once older than
// ackStale.
const (
	acksDir  = ".sink/acks/"
	aliveDir = ".sink/alive/"
)

const (
	ackStale     = time.Minute      // a marker of an unknown sink this old is taken
	ackScanEvery = 3 * time.Minute  // how often the session loop looks for markers to take
	aliveEvery   = 30 * time.Second // how often a running sink stamps .sink/alive/SINK
	ownerGone    = 2 * time.Minute  // a sink whose stamp is this old is taken for stopped
)

// owner is this sink's name in the acknowledgements area.
func (s *Sink) owner() string { return safeName(s.cfg.ClientID) }

func ackName(owner, robot, episodeID string) string {
	return acksDir + owner + "/" + robot + "/" + episodeID
}

// stampAlive records that this sink runs (.sink/alive/SINK).
func (s *Sink) stampAlive() {
	now := s.now()
	if _, err := s.store.Put(aliveDir+s.owner(), []byte(strconv.FormatInt(now.UnixNano(), 10)), blob.Cond{}); err != nil {
		s.log.Warn("sink: liveness not recorded; peers may publish this sink's acks too (harmless: a robot takes an ack once)", "err", err)
	}
	s.nextAlive = now.Add(aliveEvery)
}

// ownerRuns reports whether sink owner stamped .sink/alive/ within
// ownerGone.
func (s *Sink) ownerRuns(owner string) bool {
	b, _, err := s.store.Get(aliveDir+owner, 64)
	if err != nil {
		return false
	}
	ns, err := strconv.ParseInt(string(b), 10, 64)
	return err == nil && s.now().Sub(time.Unix(0, ns)) < ownerGone
}

// completed records and queues the acknowledgement of an episode that a
// message made complete. It runs before the message is acknowledged to
// the broker, so the marker is durable first; a marker that could not be
// written leaves the ack in memory only (as redelivering the message
// would not complete the episode again), which is logged.
func (s *Sink) completed(robot, episodeID string) {
	s.completes.Add(1)
	s.unfollow(robot, episodeID)
	s.log.Info("sink: episode complete", "robot", robot, "episode", episodeID)
	if s.cfg.OnComplete != nil {
		s.cfg.OnComplete(robot, episodeID)
	}
	a := wire.Ack{Robot: robot, Episode: episodeID, Time: s.now().UnixNano()}
	if b, err := a.MarshalMsg(nil); err != nil {
		s.log.Error("sink: ack not encoded", "err", err)
	} else if _, err := s.store.Put(ackName(s.owner(), robot, episodeID), b, blob.Cond{}); err != nil {
		s.log.Warn("sink: acknowledgement not recorded in the store; it is lost if this sink stops before publishing it "+
			"(the robot then keeps the episode until its retention); check the store", "robot", robot, "episode", episodeID, "err", err)
	}
	s.queueAck(queuedAck{a, ackName(s.owner(), robot, episodeID)})
}

// queuedAck is an acknowledgement to publish and its marker, removed
// once the broker confirmed it.
type queuedAck struct {
	wire.Ack
	marker string
}

// queueAck queues a unless an ack of its episode is queued already.
func (s *Sink) queueAck(a queuedAck) {
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

// scanAcks queues the acknowledgements recorded in the store that are
// this sink's to publish: at its start its own (a previous run's), and
// those of sinks that no longer run (ownerRuns), or of an unknown sink
// once older than ackStale. A marker that is not an acknowledgement is
// logged and left alone.
func (s *Sink) scanAcks(start bool) {
	list, err := s.store.List(acksDir)
	if err != nil {
		s.log.Warn("sink: recorded acknowledgements not listed; trying again later", "err", err)
		return
	}
	runs := map[string]bool{} // owner -> ownerRuns, once a scan
	for _, f := range list {
		owner := ""
		parts := strings.Split(strings.TrimPrefix(f.Name, acksDir), "/")
		if len(parts) == 3 {
			owner = parts[0]
		}
		switch {
		case owner == s.owner() && !start:
			continue // queued here already
		case owner != "" && owner != s.owner():
			r, seen := runs[owner]
			if !seen {
				r = s.ownerRuns(owner)
				runs[owner] = r
			}
			if r {
				continue // its sink publishes it
			}
		}
		a, err := s.readAck(f.Name, owner)
		if err != nil {
			s.log.Warn("sink: recorded acknowledgement not read; trying again later", "name", f.Name, "err", err)
			continue
		}
		if a != nil && (owner != "" || s.now().Sub(time.Unix(0, a.Time)) >= ackStale) {
			s.queueAck(queuedAck{*a, f.Name})
		}
	}
}

// readAck reads the marker name of owner ("": a marker from before
// owners); nil when it was removed meanwhile or is not an
// acknowledgement (logged).
func (s *Sink) readAck(name, owner string) (*wire.Ack, error) {
	b, _, err := s.store.Get(name, wire.MaxAck)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // published and removed meanwhile
	}
	if err != nil {
		return nil, err
	}
	a, err := wire.DecodeAck(b)
	if err == nil && ackName(owner, a.Robot, a.Episode) != name && acksDir+a.Robot+"/"+a.Episode != name {
		err = errors.New("names another episode")
	}
	if err != nil {
		s.log.Warn("sink: not an acknowledgement in the acknowledgements area; remove it", "name", name, "err", err)
		return nil, nil
	}
	return a, nil
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
			if p, ok := s.ackSent[a.Ack]; ok && p.c == c {
				continue // in flight on this connection: wait for it
			}
			b, err := a.MarshalMsg(nil)
			if err != nil {
				s.log.Error("sink: ack not encoded", "err", err)
				return
			}
			s.ackSent[a.Ack] = sentAck{c: c, t: c.Publish(wire.AckTopic(s.cfg.Prefix, a.Robot), 1, false, b)}
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
func (s *Sink) confirmAcks(window []queuedAck) (confirmed int) {
	timeout := time.NewTimer(s.ackWait)
	defer timeout.Stop()
	late := false
	for _, a := range window {
		p := s.ackSent[a.Ack]
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
		delete(s.ackSent, a.Ack)
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
func (s *Sink) dequeueAck(a queuedAck) {
	s.mu.Lock()
	if i := slices.Index(s.acks, a); i >= 0 {
		s.acks = slices.Delete(s.acks, i, i+1)
	}
	s.mu.Unlock()
	s.acked.Add(1)
	if a.marker == "" {
		return // an acknowledgement published again (repair.go) has no marker
	}
	if err := s.store.Delete(a.marker); err != nil {
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
