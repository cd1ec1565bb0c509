package capture

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// Role is what a topic feeds.
type Role uint8

// The roles. RoleClock is the /clock topic under sim time.
const (
	RoleCamera Role = iota
	RoleJoints
	RoleFSM
	RoleClock
)

func (r Role) String() string {
	switch r {
	case RoleCamera:
		return "camera"
	case RoleJoints:
		return "joints"
	case RoleFSM:
		return "fsm"
	case RoleClock:
		return "clock"
	}
	return "unknown"
}

// RoleTypes are the ROS 2 types a topic of role r can use, which its
// subscription asks for (SubscribeOptions.Types): a camera's Image or CompressedImage, a
// JointState, a Clock; an FSM topic's are its source's (fsm, nil: any).
func RoleTypes(r Role, fsm []string) []string {
	switch r {
	case RoleCamera:
		return []string{cdr.TypeCompressedImage, cdr.TypeImage}
	case RoleJoints:
		return []string{cdr.TypeJointState}
	case RoleClock:
		return []string{cdr.TypeClock}
	}
	return fsm
}

// TopicStats are one topic's cumulative counters.
type TopicStats struct {
	Topic string
	Role  Role
	Type  string // the latest publisher's type; "" before the first message

	Messages      uint64 // messages capture received from the subscription
	Events        uint64 // events handed to a sink
	Bytes         uint64 // message bytes received (subscription)
	Drops         uint64 // SubscriptionDrops + NoClockDrops + OversizeDrops + TooManyJoints
	DecodeErrors  uint64 // malformed messages (or image data shorter than its geometry)
	UnknownType   uint64 // messages of a type or image format the role cannot use
	ReceiveStamps uint64 // events stamped with the receive time (no plausible header stamp)
	Reconnects    uint64 // publisher connections re-established (subscription)
	Publishers    int    // publishers connected now (subscription)

	SubscriptionDrops uint64 // dropped by the subscription: capture was too slow, or its byte bound was full
	NoClockDrops      uint64 // sim time: dropped before the first /clock message
	OversizeDrops     uint64 // over the role's message cap (replay; live, the subscription closes the connection: Errors)
	TooManyJoints     uint64 // JointStates over Config.MaxJoints joints, dropped
	FrameIDDrops      uint64 // camera frames whose header.frame_id was over MaxFrameIDBytes: kept, with an empty FrameID
	Errors            uint64 // connections the subscription closed for bad frames

	// WrongTypeWriters counts the writers seen on the topic with a type
	// its role cannot use, each once, when the node subscribes by type
	// (ROS 2: nothing they send is read). ROS1 counts their messages in
	// UnknownType instead.
	WrongTypeWriters uint64
}

// topic is one subscribed topic. Its run goroutine, or handleMu, owns
// the decode scratch (img, cimg, js, defs); the counters are atomics
// read by Stats.
type topic struct {
	name    string
	role    Role
	dynamic bool
	types   []string // FSM: the ROS 2 types its source reads (nil: any)

	subMu sync.Mutex
	sub   Subscription

	typ           atomic.Pointer[string]
	messages      atomic.Uint64
	events        atomic.Uint64
	decodeErrors  atomic.Uint64
	unknownType   atomic.Uint64
	frameIDDrops  atomic.Uint64
	receiveStamps atomic.Uint64
	noClock       atomic.Uint64
	oversize      atomic.Uint64
	tooManyJoints atomic.Uint64
	replayBytes   atomic.Uint64 // Replay: data handled (no subscription)

	// handleMu serializes the direct calls (handleDirect) of several
	// publishers' readers over the scratch below; uncontended with one.
	handleMu sync.Mutex
	img      msg.Image
	cimg     msg.CompressedImage
	js       msg.JointState
	clk      msg.Clock
	defs     map[*ros.PublisherInfo]parsedDef // dynamic decoding, per publisher
}

func (t *topic) setSub(s Subscription) {
	t.subMu.Lock()
	t.sub = s
	t.subMu.Unlock()
}

func (t *topic) getSub() Subscription {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	return t.sub
}

func (t *topic) stats() TopicStats {
	s := TopicStats{
		Topic: t.name, Role: t.role,
		Messages: t.messages.Load(), Events: t.events.Load(), DecodeErrors: t.decodeErrors.Load(),
		UnknownType: t.unknownType.Load(), ReceiveStamps: t.receiveStamps.Load(), NoClockDrops: t.noClock.Load(),
		OversizeDrops: t.oversize.Load(), TooManyJoints: t.tooManyJoints.Load(), FrameIDDrops: t.frameIDDrops.Load(),
	}
	if p := t.typ.Load(); p != nil {
		s.Type = *p
	}
	s.Bytes = t.replayBytes.Load()
	if sub := t.getSub(); sub != nil {
		ss := sub.Stats()
		s.Bytes, s.SubscriptionDrops, s.Reconnects, s.Publishers, s.Errors = ss.Bytes, ss.Drops, ss.Reconnects, ss.Publishers, ss.Errors
		if m, ok := sub.(Mismatcher); ok {
			s.WrongTypeWriters = m.Mismatched()
		}
	}
	s.Drops = s.SubscriptionDrops + s.NoClockDrops + s.OversizeDrops + s.TooManyJoints
	return s
}

// run is the topic's goroutine: it owns the topic's scratch state and
// hands each message to the role's handler until ctx ends or the
// subscription's channel closes.
func (c *Capture) run(ctx context.Context, t *topic, sub Subscription) {
	defer c.wg.Done()
	ch := sub.Messages()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			if m == nil {
				continue
			}
			c.receive(t, m)
		}
	}
}

// handleDirect is a topic's SubscribeOptions.Handle: the reader that
// read m converts it and calls the sink itself (one hand-off fewer than
// run's).
func (c *Capture) handleDirect(t *topic, m *ros.Message) {
	t.handleMu.Lock()
	c.receive(t, m)
	t.handleMu.Unlock()
}

func (t *topic) noteType(m *ros.Message) {
	if p := t.typ.Load(); p != nil && *p == pubType(m) {
		return // the usual case: no allocation per message
	}
	typ := pubType(m)
	t.typ.Store(&typ)
}

func pubType(m *ros.Message) string {
	if m.Publisher == nil {
		return ""
	}
	return m.Publisher.Type
}

// typeIs reports whether m's publisher sends typ; an md5 other than the
// known one (and other than "*" or empty) means a different definition
// under the same name, which the typed decoder cannot read.
func typeIs(m *ros.Message, typ, md5 string) bool {
	p := m.Publisher
	if p == nil {
		return false
	}
	if p.Encoding == ros.EncodingCDR {
		return p.Type == ros2Types[typ] // ROS 2 has no md5sums
	}
	if p.Type != typ {
		return false
	}
	return p.MD5Sum == "" || p.MD5Sum == "*" || p.MD5Sum == md5
}

// handle dispatches by role; it releases m unless a Frame took it.
func (p *pipeline) handle(t *topic, m *ros.Message) {
	switch t.role {
	case RoleCamera:
		p.handleCamera(t, m)
	case RoleJoints:
		p.handleJoints(t, m)
	case RoleFSM:
		p.handleFSM(t, m)
	case RoleClock:
		p.handleClock(t, m)
	default:
		p.release(m)
	}
}

func (p *pipeline) handleClock(t *topic, m *ros.Message) {
	defer p.release(m)
	c := codecOf(m)
	if c == nil || !typeIs(m, msg.TypeClock, msg.MD5Clock) {
		t.unknownType.Add(1)
		return
	}
	if err := c.clock(m.Data, &t.clk); err != nil {
		t.decodeErrors.Add(1)
		return
	}
	p.clock.set(t.clk.Clock.Time(), m.Received)
	t.events.Add(1)
}

// receiveTime is the capture clock when m arrived: under sim time the
// /clock time of its arrival (ok false before the first /clock), else
// the wall time the ros package recorded at the end of the read.
func (p *pipeline) receiveTime(m *ros.Message) (time.Time, bool) {
	if p.sim.Load() {
		return p.clock.at(m.Received)
	}
	if !m.Received.IsZero() {
		return m.Received, true
	}
	return p.now(), true
}

// stamp picks the one clock for a message: its header stamp when set and
// within MaxStampSkew of the receive time, else the receive time. Under
// sim time before the first /clock, a set header stamp is trusted as is
// and a message without one is dropped (ok false) and counted.
func (p *pipeline) stamp(t *topic, m *ros.Message, header msg.Time, hasHeader bool) (stamp, received time.Time, src StampSource, ok bool) {
	received, haveClock := p.receiveTime(m)
	if hasHeader && !header.IsZero() {
		h := header.Time()
		if !haveClock {
			return h, h, StampHeader, true
		}
		if d := h.Sub(received); d <= p.cfg.MaxStampSkew && d >= -p.cfg.MaxStampSkew {
			return h, received, StampHeader, true
		}
	}
	if !haveClock {
		t.noClock.Add(1)
		return time.Time{}, time.Time{}, 0, false
	}
	t.receiveStamps.Add(1)
	return received, received, StampReceive, true
}

// simClock is the latest /clock value, written by the clock topic's
// goroutine and read by all the others. It also remembers when (wall
// clock) that /clock message was read and how fast sim time has been
// running, so that a message can be stamped with the sim time of its own
// arrival (at) rather than of the moment its topic's goroutine got to it.
//
// On a loaded machine /clock messages are read in bursts (several in one
// scheduling slice after a stall), so the wall time between two of them
// says nothing about the clock's rate: the rate is measured over at
// least rateWindow of wall time, and a message is never pushed further
// ahead than two clock steps (the sim time between two /clock messages,
// which bursts do not change).
type simClock struct {
	ns atomic.Int64 // latest sim time; 0: no clock yet

	mu         sync.Mutex
	wall       int64   // wall ns when the latest /clock was read; 0: unknown
	rate       float64 // sim seconds per wall second, measured over rateWindow
	step       float64 // sim ns between /clock messages, smoothed
	prevSim    int64   // the previous /clock (for step); 0: none yet
	anchorSim  int64   // the /clock the rate window started at
	anchorWall int64   // and when it was read; 0: no window yet
}

// Bounds of the arrival mapping: a message read long after the latest
// /clock (the player paused or stopped) is not pushed further than two
// clock steps ahead, nor more than maxClockLag (wall) behind.
const (
	maxClockLag      = time.Second
	defaultClockStep = 10 * time.Millisecond // rosbag play --clock: 100 Hz
	rateWindow       = 250 * time.Millisecond
	maxClockRate     = 100
)

// set records a /clock value read at wall (zero when unknown, as in a
// replay, where every message carries its own record time).
func (s *simClock) set(t time.Time, wall time.Time) {
	ns := t.UnixNano()
	if ns == 0 {
		ns = 1 // 0 means "no clock yet"; a /clock of 0 is still a clock
	}
	s.mu.Lock()
	var w int64
	if !wall.IsZero() {
		w = wall.UnixNano()
	}
	if s.prevSim == 0 {
		s.rate, s.step = 1, float64(defaultClockStep)
	} else if ds := ns - s.prevSim; ds >= 0 {
		s.step = 0.8*s.step + 0.2*float64(ds)
	}
	switch {
	case w == 0 || s.anchorWall == 0 || w < s.anchorWall || ns < s.anchorSim:
		s.anchorSim, s.anchorWall = ns, w // (re)start the window: no wall time, or time jumped back
	case w-s.anchorWall >= int64(rateWindow):
		s.rate = min(float64(ns-s.anchorSim)/float64(w-s.anchorWall), maxClockRate)
		s.anchorSim, s.anchorWall = ns, w
	}
	s.prevSim, s.wall = ns, w
	s.ns.Store(ns)
	s.mu.Unlock()
}

func (s *simClock) now() (time.Time, bool) {
	ns := s.ns.Load()
	if ns == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

// at is the sim time at which a message read at wall arrived: the latest
// /clock plus the wall time since that /clock was read, scaled by the
// clock's rate, at most two clock steps ahead and maxClockLag back.
// Without a wall time for either, it is the latest /clock.
func (s *simClock) at(wall time.Time) (time.Time, bool) {
	ns := s.ns.Load()
	if ns == 0 {
		return time.Time{}, false
	}
	if wall.IsZero() {
		return time.Unix(0, ns), true
	}
	s.mu.Lock()
	ns, clockWall, rate, step := s.ns.Load(), s.wall, s.rate, s.step // one /clock's values
	s.mu.Unlock()
	if clockWall == 0 {
		return time.Unix(0, ns), true
	}
	d := max(wall.UnixNano()-clockWall, -int64(maxClockLag))
	return time.Unix(0, ns+int64(min(float64(d)*rate, 2*step))), true
}
