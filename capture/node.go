package capture

import (
	"context"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/master"
)

// FromROS1 adapts a *ros.Node to the Node capture needs, with the
// master's parameters (Params). A ROS1 subscription takes any type:
// SubscribeOptions.Types is not asked of it. It calls
// SubscribeOptions.Handle on its publishers' reader goroutines (Direct).
func FromROS1(n *ros.Node) Node { return ros1Node{n} }

type ros1Node struct{ n *ros.Node }

func (r ros1Node) Subscribe(ctx context.Context, o SubscribeOptions) (Subscription, error) {
	s, err := r.n.Subscribe(ctx, ros.SubscribeOptions{Topic: o.Topic, QueueSize: o.QueueSize,
		QueueBytes: o.QueueBytes, MaxMessageBytes: o.MaxMessageBytes, Handler: o.Handle})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return ros1Sub{s, o.Handle != nil}, nil
}

// ros1Sub is a ROS1 subscription; direct when it was given a Handle.
type ros1Sub struct {
	*ros.Subscription
	direct bool
}

func (s ros1Sub) HandlesDirectly() bool { return s.direct }

// WatchParam is the master's parameter watch; an unset parameter is nil.
func (r ros1Node) WatchParam(ctx context.Context, key string, fn func(value any)) (any, error) {
	v, err := r.n.SubscribeParam(ctx, key, fn)
	if master.IsNotFound(err) {
		return nil, nil
	}
	return v, err
}
