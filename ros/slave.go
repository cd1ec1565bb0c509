package ros

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/xmlrpc"
)

// slaveAPI serves the ROS slave API of the node.
func (n *Node) slaveAPI() *xmlrpc.Server {
	s := xmlrpc.NewServer()
	ok := func(msg string, v any) (any, error) { return []any{1, msg, v}, nil }
	s.Register("getPid", func(context.Context, []any) (any, error) { return ok("pid", os.Getpid()) })
	s.Register("getMasterUri", func(context.Context, []any) (any, error) { return ok("", n.cfg.MasterURI) })
	s.Register("getPublications", func(context.Context, []any) (any, error) {
		out := []any{}
		for _, p := range n.publications() {
			out = append(out, []any{p.topic, p.opts.Type})
		}
		return ok("publications", out)
	})
	s.Register("getSubscriptions", func(context.Context, []any) (any, error) {
		out := []any{}
		for _, sub := range n.subscriptions() {
			out = append(out, []any{sub.topic, sub.typeName()})
		}
		return ok("subscriptions", out)
	})
	s.Register("getBusInfo", func(context.Context, []any) (any, error) { return ok("bus info", n.busInfo()) })
	s.Register("getBusStats", func(context.Context, []any) (any, error) { return ok("bus stats", n.busStats()) })
	s.Register("requestTopic", func(_ context.Context, p []any) (any, error) { return n.requestTopic(p), nil })
	s.Register("publisherUpdate", func(_ context.Context, p []any) (any, error) {
		topic, err := arg(p, 1)
		if err != nil || len(p) < 3 {
			return []any{-1, "publisherUpdate wants (caller_id, topic, publishers)", 0}, nil
		}
		uris, err := master.Strings(p[2])
		if err != nil {
			return []any{-1, "publisherUpdate: publishers must be a list of URIs", 0}, nil
		}
		if sub := n.subscription(topic); sub != nil {
			sub.setPublishers(uris)
		}
		return ok("publisher update received", 0)
	})
	s.Register("paramUpdate", func(_ context.Context, p []any) (any, error) {
		key, err := arg(p, 1)
		if err != nil || len(p) < 3 {
			return []any{-1, "paramUpdate wants (caller_id, key, value)", 0}, nil
		}
		n.paramUpdate(key, p[2], false)
		return ok("parameter update received", 0)
	})
	s.Register("shutdown", func(_ context.Context, p []any) (any, error) {
		caller, _ := arg(p, 0)
		reason, _ := arg(p, 1)
		n.requestShutdown(fmt.Sprintf("shutdown requested by %s: %s", clip(caller), clip(reason)))
		return ok("shutdown", 0)
	})
	return s
}

// requestTopic answers a subscriber's request with the TCPROS server's
// address when the node publishes the topic and TCPROS is acceptable.
func (n *Node) requestTopic(p []any) any {
	topic, err := arg(p, 1)
	if err != nil || len(p) < 3 {
		return []any{-1, "requestTopic wants (caller_id, topic, protocols)", []any{}}
	}
	if n.publication(topic) == nil {
		return []any{-1, fmt.Sprintf("Not a publisher of [%s]", clip(topic)), []any{}}
	}
	protocols, _ := p[2].([]any)
	for _, proto := range protocols {
		if l, _ := proto.([]any); len(l) > 0 && l[0] == "TCPROS" {
			port := n.tln.Addr().(*net.TCPAddr).Port
			return []any{1, "ready on " + n.cfg.Host, []any{"TCPROS", n.cfg.Host, port}}
		}
	}
	return []any{0, "edged speaks TCPROS only", []any{}}
}

// clip keeps a peer's string short enough for a log line.
func clip(s string) string {
	if len(s) > 256 {
		return s[:256] + "..."
	}
	return s
}

func arg(p []any, i int) (string, error) {
	if i >= len(p) {
		return "", errors.New("missing argument")
	}
	s, ok := p[i].(string)
	if !ok {
		return "", fmt.Errorf("argument %d is %T, want string", i, p[i])
	}
	return s, nil
}

// busInfo lists connections as rospy does:
// [connectionId, publisherURI, "i", "TCPROS", topic, connected, info],
// info in the form rosnode info parses.
func (n *Node) busInfo() []any {
	out := []any{}
	for _, sub := range n.subscriptions() {
		for _, c := range sub.connections() {
			c.mu.Lock()
			info := fmt.Sprintf("TCPROS connection on port %d to [%s on socket %d]", c.localPort, c.remote, c.id)
			c.mu.Unlock()
			out = append(out, []any{int(c.id), c.uri, "i", "TCPROS", sub.topic, c.connected.Load(), info})
		}
	}
	for _, p := range n.publications() {
		for _, c := range p.conns() {
			info := fmt.Sprintf("TCPROS connection on port %d to [%s]", n.tln.Addr().(*net.TCPAddr).Port, c.conn.RemoteAddr())
			out = append(out, []any{int(c.id), c.callerID, "o", "TCPROS", p.topic, true, info})
		}
	}
	return out
}

// busStats is [publishStats, subscribeStats, serviceStats] with
// subscribeStats = [[topic, [[connectionId, bytes, drops, connected]]]].
func (n *Node) busStats() []any {
	subStats := []any{}
	for _, sub := range n.subscriptions() {
		conns := []any{}
		for _, c := range sub.connections() {
			conns = append(conns, []any{int(c.id), int64(c.bytes.Load()), int64(sub.queue.Drops()), c.connected.Load()})
		}
		subStats = append(subStats, []any{sub.topic, conns})
	}
	pubStats := []any{}
	for _, p := range n.publications() {
		conns := []any{}
		for _, c := range p.conns() {
			conns = append(conns, []any{int(c.id), int64(c.bytes.Load()), int64(p.published.Load()), true})
		}
		pubStats = append(pubStats, []any{p.topic, int64(p.published.Load()), conns})
	}
	return []any{pubStats, subStats, []any{0, 0, 0}}
}

// paramWatch is one subscribeParam with its callbacks.
type paramWatch struct {
	key   string
	fns   []func(value any)
	last  any  // the value last seen (nil: unset)
	known bool // last is valid
}

// SubscribeParam watches a parameter (e.g. /use_sim_time): fn is called
// from the slave API's goroutine with every new value the master sends,
// and from the master watcher with the current value (nil when unset)
// each time the master (re)appears and the watch is registered again,
// so a node started before its master learns the value. It returns the
// current value; nil when unset (rosmaster answers an empty map).
func (n *Node) SubscribeParam(ctx context.Context, key string, fn func(value any)) (any, error) {
	key = n.names.resolve(key)
	n.mu.Lock()
	w := n.params[canonicalKey(key)]
	if w == nil {
		w = &paramWatch{key: key}
		n.params[canonicalKey(key)] = w
	}
	w.fns = append(w.fns, fn)
	n.mu.Unlock()
	v, err := n.master.SubscribeParam(ctx, n.uri, key)
	if err != nil {
		return nil, err // kept: registered again when the master answers
	}
	v = unsetToNil(v)
	n.mu.Lock()
	w.last, w.known = v, true
	n.mu.Unlock()
	return v, nil
}

// unsetToNil maps rosmaster's answer for an unset parameter (an empty
// map) to nil.
func unsetToNil(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil
	}
	return v
}

func canonicalKey(k string) string { return strings.TrimSuffix(k, "/") }

// paramUpdate hands value to the key's callbacks; onlyChanged (a watch
// registered again) skips a value equal to the last one seen.
func (n *Node) paramUpdate(key string, value any, onlyChanged bool) {
	key = canonicalKey(key)
	n.mu.Lock()
	var fns []func(any)
	if w := n.params[key]; w != nil && !(onlyChanged && w.known && reflect.DeepEqual(w.last, value)) {
		// rosmaster sends each subscriber its own key, with the sub-value
		// when a parent namespace was set.
		fns = append(fns, w.fns...)
		w.last, w.known = value, true
	}
	n.mu.Unlock()
	for _, fn := range fns {
		fn(value)
	}
}

func (n *Node) resubscribeParams() error {
	n.mu.Lock()
	keys := make([]string, 0, len(n.params))
	for _, w := range n.params {
		keys = append(keys, w.key)
	}
	n.mu.Unlock()
	var errs []error
	for _, k := range keys {
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.CallTimeout)
		v, err := n.master.SubscribeParam(ctx, n.uri, k)
		cancel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// the master may be new: its value may differ from the last one seen
		n.paramUpdate(k, unsetToNil(v), true)
	}
	return errors.Join(errs...)
}

func (n *Node) unsubscribeParams() {
	if !n.MasterUp() {
		return
	}
	n.mu.Lock()
	keys := make([]string, 0, len(n.params))
	for _, w := range n.params {
		keys = append(keys, w.key)
	}
	n.mu.Unlock()
	for _, k := range keys {
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.CallTimeout)
		_ = n.master.UnsubscribeParam(ctx, n.uri, k)
		cancel()
	}
}
