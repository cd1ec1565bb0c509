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

// SubscribeOptions are what capture asks of a subscription: the topic,
// the types its role can use, and the bounds of its queue.
type SubscribeOptions struct {
	Topic string
	// Types are the ROS 2 names (pkg/msg/Type) of the types the topic's
	// role can use (RoleTypes; nil: any). A middleware whose readers
	// have one type (DDS) reads only writers of these, so that a writer
	// of another type, even one that appears first, decides nothing; it
	// counts them (Mismatcher). One that subscribes any type (ROS1)
	// ignores them: capture counts such messages in UnknownType.
	Types []string
	// QueueSize and QueueBytes bound the messages queued for capture, in
	// count and in bytes (read, queued and not yet released);
	// MaxMessageBytes is the largest message read (a larger one is the
	// subscription's to refuse and count).
	QueueSize       int
	QueueBytes      int
	MaxMessageBytes int
	// Handle, for a Node that can call it, takes every message on the
	// goroutine that read it instead of Messages(), so a message crosses
	// no goroutine between the socket and the sinks. Calls may be
	// concurrent (one reader per publisher). A Node that calls it returns
	// a Subscription that is a Direct; one that does not ignores it.
	Handle func(*ros.Message)
}

// Direct is what a Subscription also offers when its Node calls
// SubscribeOptions.Handle for every message (FromROS1's do): capture then
// runs no goroutine of its own for the topic. Closing the subscription
// returns once no Handle call is running.
type Direct interface {
	HandlesDirectly() bool
}

// Node is what capture needs from a middleware: a bounded subscription
// per topic. Adapters: FromROS1 for a *ros.Node; the daemon's for a ROS 2
// DDS participant; tests use fakes.
type Node interface {
	Subscribe(ctx context.Context, o SubscribeOptions) (Subscription, error)
}

// Mismatcher is what a Subscription may also offer (a typed ROS 2 one
// does): how many writers of a type it does not read it has seen on its
// topic (TopicStats.WrongTypeWriters).
type Mismatcher interface {
	Mismatched() uint64
}

// Params is what a Node offers when its middleware has a parameter
// server (ROS1's master). Under SimTimeAuto capture reads /use_sim_time
// through it and follows its changes; a Node without it (ROS 2, where
// use_sim_time is a node's own setting, which the caller passes as
// Config.SimTime) runs on the wall clock.
type Params interface {
	// WatchParam returns key's value (nil: unset) and calls fn with
	// every later value, also when the parameter server (re)appears.
	WatchParam(ctx context.Context, key string, fn func(value any)) (any, error)
}

// FrameSink receives camera frames. PutFrame must be fast and must not
// block (copy or hand off, never wait on I/O or a lock held by a slow
// reader): it runs on the goroutine that read the message (ROS1) or on
// the topic's capture goroutine, and while it runs that topic is not
// read (the socket buffer, then the publisher's queue take up the
// stall) or its subscription queue fills and drops. The sink owns the
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
