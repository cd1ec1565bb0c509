package capture

import (
	"context"

	"github.com/edged-robotics/edged/ros"
)

// Subscription is what capture needs from one ROS subscription
// (*ros.Subscription satisfies it).
type Subscription interface {
	// Messages delivers received messages; the receiver releases each.
	Messages() <-chan *ros.Message
	Stats() ros.SubscriptionStats
	Close() error
}

// TypedNode is what a Node may also offer (the ROS 2 one does): a
// subscription that reads only writers of the given types (ROS 2 names,
// pkg/msg/Type; nil: any), so that a writer of another type on the topic
// decides nothing. Capture then subscribes every topic with its role's
// types (RoleTypes).
type TypedNode interface {
	SubscribeTypes(ctx context.Context, opts ros.SubscribeOptions, types []string) (Subscription, error)
}

// MismatchCounter is what a Subscription may also offer (a typed ROS 2
// one does): how many writers of a type it does not read it has seen on
// its topic (TopicStats.WrongTypeWriters).
type MismatchCounter interface {
	Mismatched() uint64
}

// Node is what capture needs from a ROS node. Wrap a *ros.Node with
// FromNode; tests use fakes.
type Node interface {
	Subscribe(ctx context.Context, opts ros.SubscribeOptions) (Subscription, error)
	// GetParam reads a parameter from the master (for /use_sim_time).
	GetParam(ctx context.Context, key string) (any, error)
}

// ParamWatcher is what a Node may also offer (the one FromNode returns
// does): a parameter watch whose fn gets every new value, also when the
// master (re)appears. Capture then follows /use_sim_time after Start;
// without it /use_sim_time is read once.
type ParamWatcher interface {
	SubscribeParam(ctx context.Context, key string, fn func(value any)) (any, error)
}

// FrameSink receives camera frames. PutFrame must be fast and must not
// block (copy or hand off, never wait on I/O or a lock held by a slow
// reader): it runs on the topic's capture goroutine, and while it runs
// that topic's subscription queue fills and drops. The sink owns the
// Frame and must call Release exactly once, after which Data is invalid.
type FrameSink interface {
	PutFrame(Frame)
}

// JointSink receives joint samples; same rules as FrameSink (fast, never
// blocking). The sink owns the sample and its slices.
type JointSink interface {
	PutJoints(JointSample)
}

// StateSink receives FSM source messages; same rules as FrameSink (fast,
// never blocking). The sink owns the event and its Value.
type StateSink interface {
	PutState(StateEvent)
}

// Sinks are the consumers of capture's events. The sink of every role
// that has topics is required. A sink may be shared by several topics:
// it is then called from several goroutines at once.
type Sinks struct {
	Frames FrameSink
	Joints JointSink
	States StateSink
}
