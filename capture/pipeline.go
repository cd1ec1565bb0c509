package capture

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// pipeline turns one message of a topic into one event for the sinks:
// the per-message code that Capture (live, one goroutine per topic) and
// Replay (a bag, synchronously) share, so both give the same events.
type pipeline struct {
	cfg   Config
	sinks Sinks
	now   func() time.Time
	clock simClock
	sim   atomic.Bool

	// borrowed: messages are not pooled and are reused by the caller
	// once handled (Replay), so a Frame's Release must not touch them.
	borrowed bool

	// ros2Types resolves ROS 2 types a publisher's text lacks (nil: the
	// bundled definitions); read-only.
	ros2Types *cdr.Registry

	// onRelease, when set (tests), sees every message capture releases
	// or hands to a Frame.
	onRelease func(*ros.Message)
}

// checkSetup validates cfg and that every role with topics has a sink.
func checkSetup(cfg Config, sinks Sinks) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("capture config: %w", err)
	}
	switch {
	case len(cfg.Cameras) > 0 && sinks.Frames == nil:
		return errors.New("capture: cameras are configured but Sinks.Frames is nil")
	case len(cfg.Joints) > 0 && sinks.Joints == nil:
		return errors.New("capture: joints are configured but Sinks.Joints is nil")
	case len(cfg.FSM) > 0 && sinks.States == nil:
		return errors.New("capture: fsm topics are configured but Sinks.States is nil")
	}
	return nil
}

// topics returns one topic per configured name, cameras first.
func (c Config) topics() []*topic {
	var ts []*topic
	for _, t := range c.Cameras {
		ts = append(ts, &topic{name: t, role: RoleCamera})
	}
	for _, t := range c.Joints {
		ts = append(ts, &topic{name: t, role: RoleJoints})
	}
	for _, t := range c.FSM {
		ts = append(ts, &topic{name: t.Topic, role: RoleFSM, dynamic: t.Dynamic, types: t.Types})
	}
	return ts
}

// receive counts m on t and converts it: the one entry per message for
// both the live and the replay path.
func (p *pipeline) receive(t *topic, m *ros.Message) {
	t.messages.Add(1)
	t.noteType(m)
	if len(m.Data) > p.cfg.maxMessage(t.role) {
		// live, the subscription already refused it; a replayed bag
		// gets the same cap, so that it costs what live capture would
		t.oversize.Add(1)
		p.release(m)
		return
	}
	p.handle(t, m)
}

// maxMessage is the cap of one message for a role (after withDefaults).
func (c Config) maxMessage(r Role) int {
	if r == RoleCamera {
		return c.MaxMessageBytes
	}
	return c.MaxStateMessageBytes
}

// subscribeOptions are the subscription options of topic t: the types
// its role can use and the role's count and byte bounds (after
// withDefaults).
func (c Config) subscribeOptions(t *topic) SubscribeOptions {
	types := RoleTypes(t.role, t.types)
	if t.role == RoleCamera {
		return SubscribeOptions{Topic: t.name, Types: types, QueueSize: c.QueueSize, QueueBytes: c.QueueBytes,
			MaxMessageBytes: c.MaxMessageBytes}
	}
	return SubscribeOptions{Topic: t.name, Types: types, QueueSize: c.StateQueueSize, QueueBytes: c.StateQueueBytes,
		MaxMessageBytes: c.MaxStateMessageBytes}
}

// release gives m back to its pool.
func (p *pipeline) release(m *ros.Message) {
	if p.onRelease != nil {
		p.onRelease(m)
	}
	m.Release()
}

// frame wraps f so that its Release releases m, without allocating.
func (p *pipeline) frame(f Frame, m *ros.Message) Frame {
	if p.borrowed {
		return NewFrameReleaser(f, noRelease{})
	}
	if p.onRelease != nil {
		return NewFrame(f, func() { p.release(m) })
	}
	return NewFrameReleaser(f, m)
}

// noRelease is the Releaser of a frame whose buffer nobody pools.
type noRelease struct{}

func (noRelease) Release() {}
