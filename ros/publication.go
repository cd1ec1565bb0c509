package ros

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros/tcpros"
)

// Advertise publishes a topic over TCPROS: it registers with the
// master (again after a restart), answers requestTopic with the
// node's TCPROS server, checks each subscriber's md5sum, and gives
// every subscriber its own bounded queue and writer goroutine:
// Publish copies the message and never blocks; a slow subscriber
// loses its oldest messages (counted in PublicationStats.Drops). At
// most MaxSubscribers per topic and 32 handshakes under way at once,
// each under CallTimeout with its header capped at MaxHeaderBytes.

// PublishOptions describe a topic the node publishes.
type PublishOptions struct {
	Topic      string // resolved and remapped like a subscription's
	Type       string // e.g. rosgraph_msgs/Log
	MD5Sum     string
	Definition string // the full message definition, as gendeps writes it
	Latch      bool   // send the last message to every new subscriber
	// QueueSize is how many messages wait per subscriber before the
	// oldest is dropped (counted). Default 100.
	QueueSize int
	// MaxSubscribers caps the subscriber connections. Default 16.
	MaxSubscribers int
}

// Publication is a topic the node publishes over TCPROS. Publish never
// blocks: each subscriber has its own bounded queue and writer.
type Publication struct {
	node  *Node
	opts  PublishOptions
	topic string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	subs   map[*subConn]struct{}
	latest []byte // the last frame, for latching

	published, drops atomic.Uint64
}

// subConn is one subscriber's connection and its queue.
type subConn struct {
	id       int64
	conn     net.Conn
	callerID string
	queue    chan []byte
	bytes    atomic.Uint64
}

// PublicationStats are a publication's counters.
type PublicationStats struct {
	Subscribers int
	Published   uint64 // messages handed to Publish
	Drops       uint64 // messages a subscriber's full queue dropped
}

// Advertise starts publishing a topic: it registers with the master now
// if it is up, else when it appears (and again after every restart).
func (n *Node) Advertise(opts PublishOptions) (*Publication, error) {
	if opts.Topic == "" || opts.Type == "" || opts.MD5Sum == "" {
		return nil, errors.New("ros: Advertise needs a topic, a type and an md5sum")
	}
	topic := n.ResolveTopic(opts.Topic)
	if err := checkName(topic); err != nil {
		return nil, fmt.Errorf("ros: advertise: %w", err)
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 100
	}
	if opts.MaxSubscribers <= 0 {
		opts.MaxSubscribers = 16
	}
	ctx, cancel := context.WithCancel(n.ctx)
	p := &Publication{node: n, opts: opts, topic: topic, ctx: ctx, cancel: cancel, subs: map[*subConn]struct{}{}}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		cancel()
		return nil, errors.New("ros: node is closed")
	}
	if _, dup := n.pubs[topic]; dup {
		n.mu.Unlock()
		cancel()
		return nil, fmt.Errorf("ros: already publishing %s", topic)
	}
	n.pubs[topic] = p
	n.mu.Unlock()
	if n.MasterUp() {
		if err := p.register(n.ctx); err != nil {
			n.log.Warn("ros: registering publisher failed; will retry", "topic", topic, "err", err)
		}
	}
	return p, nil
}

// Topic is the resolved topic name.
func (p *Publication) Topic() string { return p.topic }

// Publish sends one serialized message to every subscriber. It copies
// data, never blocks, and drops (counting) the oldest queued message of
// a subscriber that does not keep up.
func (p *Publication) Publish(data []byte) {
	frame := make([]byte, 4+len(data))
	binary.LittleEndian.PutUint32(frame, uint32(len(data)))
	copy(frame[4:], data)
	p.published.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.Latch {
		p.latest = frame
	}
	for c := range p.subs {
		p.enqueue(c, frame)
	}
}

// enqueue puts frame on c's queue, dropping the oldest if it is full.
// Called with p.mu held, so only Publish competes with the writer.
func (p *Publication) enqueue(c *subConn, frame []byte) {
	for {
		select {
		case c.queue <- frame:
			return
		default:
		}
		select {
		case <-c.queue:
			p.drops.Add(1)
		default:
		}
	}
}

// Stats returns the publication's counters.
func (p *Publication) Stats() PublicationStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PublicationStats{Subscribers: len(p.subs), Published: p.published.Load(), Drops: p.drops.Load()}
}

// Close unregisters the publication, disconnects its subscribers and
// waits for their writers.
func (p *Publication) Close() error {
	p.node.removePub(p)
	if p.node.MasterUp() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), p.node.cfg.CallTimeout)
		_ = p.node.master.UnregisterPublisher(ctx, p.topic, p.node.uri)
		cancel()
	}
	p.shutdown()
	return nil
}

func (p *Publication) shutdown() {
	p.cancel()
	p.mu.Lock()
	for c := range p.subs {
		_ = c.conn.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Publication) register(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.node.cfg.CallTimeout)
	defer cancel()
	return p.node.master.RegisterPublisher(ctx, p.topic, p.opts.Type, p.node.uri)
}

// header is the publisher's answer to a subscriber's connection header.
func (p *Publication) header() tcpros.Header {
	latching := "0"
	if p.opts.Latch {
		latching = "1"
	}
	return tcpros.Header{"callerid": p.node.name, "topic": p.topic, "type": p.opts.Type,
		"md5sum": p.opts.MD5Sum, "message_definition": p.opts.Definition, "latching": latching}
}

// accept takes a subscriber whose header was checked: it answers, then
// owns conn until either side hangs up.
func (p *Publication) accept(conn net.Conn, callerID string) error {
	if _, err := conn.Write(tcpros.EncodeHeader(p.header())); err != nil {
		return fmt.Errorf("ros: answering subscriber %s of %s: %w", callerID, p.topic, err)
	}
	_ = conn.SetDeadline(time.Time{})
	c := &subConn{id: p.node.connID.Add(1), conn: conn, callerID: callerID, queue: make(chan []byte, p.opts.QueueSize)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil || len(p.subs) >= p.opts.MaxSubscribers {
		return fmt.Errorf("ros: %s has its maximum of %d subscribers", p.topic, p.opts.MaxSubscribers)
	}
	if p.latest != nil {
		c.queue <- p.latest
	}
	p.subs[c] = struct{}{}
	p.wg.Add(2)
	go p.write(c)
	go p.watch(c)
	return nil
}

// write sends c's queue until the connection or the publication ends.
func (p *Publication) write(c *subConn) {
	defer p.wg.Done()
	defer p.drop(c)
	for {
		select {
		case <-p.ctx.Done():
			return
		case frame := <-c.queue:
			_ = c.conn.SetWriteDeadline(time.Now().Add(p.node.cfg.FrameTimeout))
			if _, err := c.conn.Write(frame); err != nil {
				return
			}
			c.bytes.Add(uint64(len(frame)))
		}
	}
}

// watch notices a subscriber hanging up (a subscriber sends nothing
// after its header) and closes the connection, which ends write.
func (p *Publication) watch(c *subConn) {
	defer p.wg.Done()
	var b [64]byte
	for {
		if _, err := c.conn.Read(b[:]); err != nil {
			_ = c.conn.Close()
			return
		}
	}
}

func (p *Publication) drop(c *subConn) {
	_ = c.conn.Close()
	p.mu.Lock()
	delete(p.subs, c)
	p.mu.Unlock()
}

func (p *Publication) conns() []*subConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*subConn, 0, len(p.subs))
	for c := range p.subs {
		out = append(out, c)
	}
	return out
}
