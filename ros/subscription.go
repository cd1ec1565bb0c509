package ros

import (
	"context"
	"github.com/edged-robotics/edged/internal/loglimit"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
)

// Subscription receives one topic from every publisher the master knows.
type Subscription struct {
	node  *Node
	topic string
	opts  SubscribeOptions
	queue *Queue

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	releaseFn func(*Message) // s.releaseMessage, bound once so Release does not allocate

	mu   sync.Mutex // guards pubs
	pubs map[string]*pubConn

	bytes, errors                 atomic.Uint64
	connects, reconnects, refused atomic.Uint64
	connected                     atomic.Int64
	lastType                      atomic.Pointer[string]
	refuseLog                     loglimit.Limiter
}

var messagePool = sync.Pool{New: func() any { return new(Message) }}

func newSubscription(n *Node, opts SubscribeOptions) *Subscription {
	if opts.QueueSize == 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.MaxMessageBytes == 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.QueueBytes == 0 {
		opts.QueueBytes = DefaultQueueBytes(opts.MaxMessageBytes)
	}
	if opts.MaxPublishers == 0 {
		opts.MaxPublishers = DefaultMaxPublishers
	}
	if opts.Type == "" {
		opts.Type = "*"
	}
	ctx, cancel := context.WithCancel(n.ctx)
	s := &Subscription{node: n, topic: opts.Topic, opts: opts, queue: NewQueue(opts.Topic, opts.QueueSize, opts.QueueBytes, n.log, "ros"),
		ctx: ctx, cancel: cancel, pubs: map[string]*pubConn{}}
	s.releaseFn = s.releaseMessage
	return s
}

// Topic is the subscription's global topic name.
func (s *Subscription) Topic() string { return s.topic }

// Messages delivers received messages; Release each one. The channel is
// closed after Close (or the node's Close) once no more can arrive.
func (s *Subscription) Messages() <-chan *Message { return s.queue.C() }

// Stats returns the subscription's counters.
func (s *Subscription) Stats() SubscriptionStats {
	return SubscriptionStats{
		Messages:   s.queue.Messages(),
		Bytes:      s.bytes.Load(),
		Drops:      s.queue.Drops(),
		Errors:     s.errors.Load(),
		Connects:   s.connects.Load(),
		Reconnects: s.reconnects.Load(),
		Publishers: int(s.connected.Load()),

		HeldBytes:         s.queue.Held(),
		RefusedPublishers: s.refused.Load(),
	}
}

// Publishers lists the slave URIs of the publishers this subscription
// currently tries to be connected to, sorted.
func (s *Subscription) Publishers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.pubs))
	for uri := range s.pubs {
		out = append(out, uri)
	}
	sort.Strings(out)
	return out
}

// Close unregisters from the master (best effort), closes every publisher
// connection, waits for their goroutines and closes Messages().
func (s *Subscription) Close() error {
	s.closeOnce.Do(func() {
		s.node.removeSub(s)
		if s.node.MasterUp() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), s.node.cfg.CallTimeout)
			if _, err := s.node.master.UnregisterSubscriber(ctx, s.topic, s.node.uri); err != nil {
				s.node.log.Warn("ros: unregistering subscriber failed", "topic", s.topic, "err", err)
			}
			cancel()
		}
		s.shutdown()
	})
	return nil
}

// shutdown stops the connections and closes the queue.
func (s *Subscription) shutdown() {
	s.mu.Lock() // setPublishers checks ctx under mu: no wg.Add after this
	s.cancel()
	s.mu.Unlock()
	s.wg.Wait()
	s.queue.Close()
}

// register registers with the master and adopts its publisher list.
func (s *Subscription) register(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.node.cfg.CallTimeout)
	defer cancel()
	pubs, err := s.node.master.RegisterSubscriber(ctx, s.topic, s.opts.Type, s.node.uri)
	if err != nil {
		return err
	}
	s.setPublishers(pubs)
	return nil
}

// setPublishers makes the set of publisher connections match uris:
// new publishers get a connection goroutine, vanished ones are stopped.
// Duplicates are ignored; URIs that are not http://host:port and those
// past MaxPublishers (publishers already known come first) are refused,
// counted and logged (rate limited).
func (s *Subscription) setPublishers(uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	want := make(map[string]bool, min(len(uris), 2*s.opts.MaxPublishers))
	var fresh []string
	refused := 0
	for _, u := range uris {
		switch _, known := s.pubs[u]; {
		case want[u]:
		case known:
			want[u] = true
		case len(fresh) >= s.opts.MaxPublishers || !isSlaveURI(u):
			refused++
		default:
			want[u] = true
			fresh = append(fresh, u)
		}
	}
	for u, c := range s.pubs {
		switch {
		case want[u]:
			c.unlisted.Store(false)
		case c.connected.Load():
			// Keep a live connection the master no longer lists (a
			// restarted master only knows publishers that registered
			// since); it is not re-established once it drops.
			c.unlisted.Store(true)
		default:
			c.cancel()
			delete(s.pubs, u)
		}
	}
	for _, u := range fresh {
		if _, ok := s.pubs[u]; ok {
			continue
		}
		if len(s.pubs) >= s.opts.MaxPublishers {
			refused++
			continue
		}
		c := newPubConn(s, u)
		s.pubs[u] = c
		s.wg.Add(1)
		go c.run()
	}
	if refused > 0 {
		s.refused.Add(uint64(refused))
		if ok, more := s.refuseLog.Allow(); ok {
			s.node.log.Warn("ros: ignored publisher URIs (not http://host:port, or over the cap of publishers per topic)",
				"topic", s.topic, "ignored", refused, "max_publishers", s.opts.MaxPublishers, "suppressed_logs", more)
		}
	}
}

// isSlaveURI accepts what a ROS slave API URI looks like: http(s) with a
// host and a port.
func isSlaveURI(u string) bool {
	if len(u) > 1024 {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Hostname() != "" && p.Port() != ""
}

// forget removes c if it is still the connection for its URI.
func (s *Subscription) forget(c *pubConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pubs[c.uri] == c {
		delete(s.pubs, c.uri)
	}
}

func (s *Subscription) releaseMessage(m *Message) {
	s.node.pool.Put(m.buf)
	s.queue.Unreserve(m.reserved)
	*m = Message{}
	messagePool.Put(m)
}

// connections snapshots the publisher connections, for the slave API.
func (s *Subscription) connections() []*pubConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*pubConn, 0, len(s.pubs))
	for _, c := range s.pubs {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// typeName is the topic's type as learned from a publisher, else the
// registered type.
func (s *Subscription) typeName() string {
	if t := s.lastType.Load(); t != nil {
		return *t
	}
	return s.opts.Type
}
