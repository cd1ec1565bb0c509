package capture

import (
	"context"

	"github.com/edged-robotics/edged/ros"
)

// FromNode adapts a *ros.Node to the Node capture needs.
func FromNode(n *ros.Node) Node { return rosNode{n} }

type rosNode struct{ n *ros.Node }

func (r rosNode) Subscribe(ctx context.Context, opts ros.SubscribeOptions) (Subscription, error) {
	s, err := r.n.Subscribe(ctx, opts)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return s, nil
}

func (r rosNode) GetParam(ctx context.Context, key string) (any, error) {
	return r.n.GetParam(ctx, key)
}

func (r rosNode) SubscribeParam(ctx context.Context, key string, fn func(value any)) (any, error) {
	return r.n.SubscribeParam(ctx, key, fn)
}
