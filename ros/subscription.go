package ros

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
)

// Subscription receives one topic from every publisher the master knows.
type Subscription struct {
	node  *Node
	topic string
	opts  SubscribeOptions
	queue chan *Message

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	releaseFn func(*Message) // s.releaseMessage, bound once so Release does not allocate

	mu   sync.Mutex // guards pubs
	pubs map[string]*pubConn

	messages, bytes, drops, errors atomic.Uint64
	connects, reconnects           atomic.Uint64
	connected                      atomic.Int64
	lastType                       atomic.Pointer[string]
}

var messagePool = sync.Pool{New: func() any { return new(Message) }}

func newSubscription(n *Node, opts SubscribeOptions) *Subscription {
	if opts.QueueSize == 0 {
		opts.QueueSize = 8
	}
	if opts.MaxMessageBytes == 0 {
		opts.MaxMessageBytes = 64 << 20
	}
	if opts.Type == "" {
		opts.Type = "*"
	}
	ctx, cancel := context.WithCancel(n.ctx)
	s := &Subscription{node: n, topic: opts.Topic, opts: opts, queue: make(chan *Message, opts.QueueSize),
		ctx: ctx, cancel: cancel, pubs: map[string]*pubConn{}}
	s.releaseFn = s.releaseMessage
	return s
}

// Topic is the subscription's global topic name.
func (s *Subscription) Topic() string { return s.topic }

// Messages delivers received messages; Release each one. The channel is
// closed after Close (or the node's Close) once no more can arrive.
func (s *Subscription) Messages() <-chan *Message { return s.queue }

// Stats returns the subscription's counters.
func (s *Subscription) Stats() SubscriptionStats {
	return SubscriptionStats{
		Messages:   s.messages.Load(),
		Bytes:      s.bytes.Load(),
		Drops:      s.drops.Load(),
		Errors:     s.errors.Load(),
		Connects:   s.connects.Load(),
		Reconnects: s.reconnects.Load(),
		Publishers: int(s.connected.Load()),
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
	close(s.queue)
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
func (s *Subscription) setPublishers(uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	want := make(map[string]bool, len(uris))
	for _, u := range uris {
		want[u] = true
		if _, ok := s.pubs[u]; !ok {
			c := newPubConn(s, u)
			s.pubs[u] = c
			s.wg.Add(1)
			go c.run()
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
}

// forget removes c if it is still the connection for its URI.
func (s *Subscription) forget(c *pubConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pubs[c.uri] == c {
		delete(s.pubs, c.uri)
	}
}

// deliver queues m without ever blocking: when the queue is full the
// oldest waiting message is dropped, released and counted.
func (s *Subscription) deliver(m *Message) {
	for {
		select {
		case s.queue <- m:
			s.messages.Add(1)
			return
		default:
		}
		select {
		case old := <-s.queue:
			old.Release()
			s.drops.Add(1)
		default:
		}
	}
}

func (s *Subscription) releaseMessage(m *Message) {
	s.node.pool.Put(m.buf)
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
