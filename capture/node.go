package capture

import (
	"context"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/master"
)

// FromROS1 adapts a *ros.Node to the Node capture needs, with the
// master's parameters (Params). A ROS1 subscription takes any type:
// SubscribeOptions.Types is not asked of it.
func FromROS1(n *ros.Node) Node { return ros1Node{n} }

type ros1Node struct{ n *ros.Node }

func (r ros1Node) Subscribe(ctx context.Context, o SubscribeOptions) (Subscription, error) {
	s, err := r.n.Subscribe(ctx, ros.SubscribeOptions{Topic: o.Topic, QueueSize: o.QueueSize,
		QueueBytes: o.QueueBytes, MaxMessageBytes: o.MaxMessageBytes})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return s, nil
}

// WatchParam is the master's parameter watch; an unset parameter is nil.
func (r ros1Node) WatchParam(ctx context.Context, key string, fn func(value any)) (any, error) {
	v, err := r.n.SubscribeParam(ctx, key, fn)
	if master.IsNotFound(err) {
		return nil, nil
	}
	return v, err
}
