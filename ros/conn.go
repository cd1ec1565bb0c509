package ros

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// pubConn keeps one TCPROS connection to one publisher alive.
type pubConn struct {
	sub    *Subscription
	uri    string
	id     int64
	ctx    context.Context
	cancel context.CancelFunc

	bytes     atomic.Uint64
	connected atomic.Bool
	unlisted  atomic.Bool // the master no longer lists it: do not reconnect
	mu        sync.Mutex  // guards remote and localPort
	remote    string      // host:port of the TCPROS connection
	localPort int
}

func newPubConn(s *Subscription, uri string) *pubConn {
	ctx, cancel := context.WithCancel(s.ctx)
	return &pubConn{sub: s, uri: uri, id: s.node.connID.Add(1), ctx: ctx, cancel: cancel}
}

// run connects, reads until the connection is lost, and reconnects with
// exponential backoff until cancelled.
func (c *pubConn) run() {
	defer c.sub.wg.Done()
	defer c.cancel()
	cfg := c.sub.node.cfg
	backoff := cfg.ReconnectMin
	everConnected := false
	for {
		connected, err := c.session(everConnected)
		everConnected = everConnected || connected
		if c.ctx.Err() != nil {
			return
		}
		if c.unlisted.Load() {
			c.sub.forget(c)
			return
		}
		if connected {
			backoff = cfg.ReconnectMin
		}
		if isProtocolError(err) {
			c.sub.errors.Add(1)
			c.sub.node.log.Warn("ros: closed a bad publisher connection", "topic", c.sub.topic, "publisher", c.uri, "err", err)
		} else {
			c.sub.node.log.Debug("ros: publisher connection lost", "topic", c.sub.topic, "publisher", c.uri, "err", err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-c.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, cfg.ReconnectMax)
	}
}

// isProtocolError tells a misbehaving publisher (counted in Errors) from
// one that is merely gone (a reconnect).
func isProtocolError(err error) bool {
	return errors.Is(err, tcpros.ErrTooLarge) || errors.Is(err, tcpros.ErrMalformed) || errors.Is(err, errRefused)
}

var errRefused = errors.New("publisher refused the subscription")

// session makes one connection and reads from it until it fails.
// connected reports whether the handshake succeeded.
func (c *pubConn) session(reconnect bool) (connected bool, err error) {
	node := c.sub.node
	ctx, cancel := context.WithTimeout(c.ctx, node.cfg.CallTimeout)
	host, port, err := master.NewSlave(c.uri, node.name, node.cfg.CallTimeout).RequestTopicTCPROS(ctx, c.sub.topic)
	if err != nil {
		cancel()
		return false, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	cancel()
	if err != nil {
		return false, err
	}
	defer conn.Close()
	stop := context.AfterFunc(c.ctx, func() { conn.Close() }) // unblocks reads on cancel
	defer stop()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(c.sub.opts.TCPNoDelay)
		_ = tc.SetReadBuffer(4 << 20) // room for a few large frames while we are scheduled out
	}
	_ = conn.SetDeadline(time.Now().Add(node.cfg.CallTimeout))
	ph, err := tcpros.Handshake(conn, tcpros.SubscriberHeader{
		CallerID: node.name, Topic: c.sub.topic, Type: c.sub.opts.Type, MD5Sum: "*", TCPNoDelay: c.sub.opts.TCPNoDelay,
	}, node.cfg.MaxHeaderBytes)
	if err != nil {
		if !errors.Is(err, tcpros.ErrTooLarge) && !errors.Is(err, tcpros.ErrMalformed) && !isNetErr(err) {
			err = fmt.Errorf("%w: %w", errRefused, err)
		}
		return false, err
	}
	_ = conn.SetDeadline(time.Time{})
	info := &PublisherInfo{CallerID: ph.CallerID, URI: c.uri, Type: ph.Type, MD5Sum: ph.MD5Sum,
		MessageDefinition: ph.MessageDefinition, Latching: ph.Latching}
	c.sub.lastType.Store(&info.Type)
	c.mu.Lock()
	c.remote = conn.RemoteAddr().String()
	if a, ok := conn.LocalAddr().(*net.TCPAddr); ok {
		c.localPort = a.Port
	}
	c.mu.Unlock()
	c.sub.connects.Add(1)
	if reconnect {
		c.sub.reconnects.Add(1)
	}
	c.connected.Store(true)
	c.sub.connected.Add(1)
	defer func() {
		c.connected.Store(false)
		c.sub.connected.Add(-1)
	}()
	node.log.Info("ros: connected to publisher", "topic", c.sub.topic, "publisher", ph.CallerID, "type", ph.Type)
	return true, c.readLoop(conn, info)
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// readLoop reads frames into pooled messages and queues them.
func (c *pubConn) readLoop(conn net.Conn, info *PublisherInfo) error {
	s := c.sub
	fr := tcpros.NewFrameReader(conn, s.opts.MaxMessageBytes, s.node.pool)
	for {
		buf, err := fr.Next()
		if err != nil {
			return err
		}
		m := messagePool.Get().(*Message)
		m.Topic = s.topic
		m.Publisher = info
		m.Data = buf.B
		m.Received = time.Now()
		m.buf = buf
		m.release = s.releaseFn
		n := uint64(len(buf.B))
		s.bytes.Add(n)
		c.bytes.Add(n)
		s.deliver(m)
	}
}
