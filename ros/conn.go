package ros

import (
	"context"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/loglimit"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// Subscribe returns a Subscription with one goroutine per publisher,
// at most MaxPublishers (default 16; further URIs, duplicates and
// URIs that are not http://host:port are ignored and counted in
// RefusedPublishers). Each keeps one TCPROS connection and
// reconnects with exponential backoff (ReconnectMin..ReconnectMax;
// up to UnreachableMax for a publisher that never answered) while
// the master lists that publisher. The backoff starts over only
// after a session that lasted ReconnectMax, so a publisher failing
// every frame is not hammered; repeated log lines are rate limited
// (one per 30s with a count of the suppressed ones). A bad header or
// a frame over MaxMessageBytes closes the connection and counts an
// error; nothing read from the wire is allocated before it is
// checked against a cap.

// Read deadlines: the handshake must finish within CallTimeout; a
// frame body, once its length is read, within FrameTimeout +
// size/MinFrameRate (64 MiB: 74s by default), else the connection is
// closed and counted as an error. A publisher idle between frames is
// never cut off. A body over tcpros.GrowStep (1 MiB) and over the
// connection's last whole frame is read into buffers growing 4x at a
// time, so a stalled publisher pins at most 4x what it sent, or the
// size of a frame it sent whole (a camera's frames: one buffer).

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
	logLim    loglimit.Limiter // run's log lines
	reserved  int              // bytes of the frame being read charged to the budget (readLoop only)
	// rcvbufIfSmall: SO_RCVBUF to set if the session's first frame is
	// small, 0 once decided (session, then readLoop only; rcvbuf.go)
	rcvbufIfSmall int
}

func newPubConn(s *Subscription, uri string) *pubConn {
	ctx, cancel := context.WithCancel(s.ctx)
	return &pubConn{sub: s, uri: uri, id: s.node.connID.Add(1), ctx: ctx, cancel: cancel}
}

// run connects, reads until the connection is lost, and reconnects with
// exponential backoff until cancelled. The backoff starts again from
// ReconnectMin only after a session that stayed up for ReconnectMax: a
// publisher that connects and then fails every frame is retried less and
// less often, like one that refuses. One that never answered backs off
// up to UnreachableMax. Its log lines are rate limited (loglimit.Every).
func (c *pubConn) run() {
	defer c.sub.wg.Done()
	defer c.cancel()
	cfg := c.sub.node.cfg
	backoff := cfg.ReconnectMin
	everConnected := false
	for {
		verbose, suppressed := c.logLim.Allow()
		began := time.Now()
		connected, err := c.session(everConnected, verbose)
		everConnected = everConnected || connected
		if c.ctx.Err() != nil {
			return
		}
		if c.unlisted.Load() {
			c.sub.forget(c)
			return
		}
		if connected && time.Since(began) >= cfg.ReconnectMax {
			backoff = cfg.ReconnectMin
		}
		c.logFailure(err, verbose, suppressed, backoff)
		t := time.NewTimer(backoff)
		select {
		case <-c.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		limit := cfg.ReconnectMax
		if !everConnected {
			limit = cfg.UnreachableMax
		}
		backoff = min(backoff*2, limit)
	}
}

// logFailure counts a protocol error and logs why a session ended (when
// the rate limit lets it through).
func (c *pubConn) logFailure(err error, verbose bool, suppressed int, backoff time.Duration) {
	log := c.sub.node.log
	if isProtocolError(err) {
		c.sub.errors.Add(1)
		if verbose {
			log.Warn("ros: closed a bad publisher connection", "topic", c.sub.topic, "publisher", c.uri, "err", err,
				"retry_in", backoff, "suppressed_logs", suppressed)
		}
		return
	}
	if verbose {
		log.Debug("ros: publisher connection lost", "topic", c.sub.topic, "publisher", c.uri, "err", err,
			"retry_in", backoff, "suppressed_logs", suppressed)
	}
}

// isProtocolError tells a misbehaving publisher (counted in Errors) from
// one that is merely gone (a reconnect).
func isProtocolError(err error) bool {
	return errors.Is(err, tcpros.ErrTooLarge) || errors.Is(err, tcpros.ErrMalformed) || errors.Is(err, errRefused) ||
		errors.Is(err, errStalled)
}

var (
	errRefused = errors.New("publisher refused the subscription")
	errStalled = errors.New("publisher stalled in the middle of a frame")
)

// session makes one connection and reads from it until it fails.
// connected reports whether the handshake succeeded.
func (c *pubConn) session(reconnect, verbose bool) (connected bool, err error) {
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
		var now int
		now, c.rcvbufIfSmall = readBufferPlan(c.sub.opts.MaxMessageBytes, autotuneMax()) // rcvbuf.go
		if now > 0 {
			_ = tc.SetReadBuffer(now)
		}
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
	if verbose {
		node.log.Info("ros: connected to publisher", "topic", c.sub.topic, "publisher", ph.CallerID, "type", ph.Type)
	}
	return true, c.readLoop(conn, info)
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// readLoop reads frames into pooled messages and hands them on (to the
// Handler on this goroutine, else to the queue). Every buffer is charged
// to the subscription's byte budget before it is taken (a frame without
// room is skipped and counted as a drop), and a frame body must arrive
// within FrameTimeout + size/MinFrameRate (bodyDeadline: no timer
// operation per frame in a steady stream).
func (c *pubConn) readLoop(conn net.Conn, info *PublisherInfo) error {
	s := c.sub
	cfg := s.node.cfg
	fr := tcpros.NewFrameReader(tcpros.SocketReader(conn), s.opts.MaxMessageBytes, s.node.pool)
	reserve := func(n int) bool {
		if !s.queue.Reserve(n) {
			return false
		}
		c.reserved += n
		return true
	}
	dl := bodyDeadline{conn: conn}
	for {
		n, err := fr.ReadLength()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && dl.clearIfArmed() {
				continue // idle between frames is fine: the deadline was a body's
			}
			return err
		}
		limit := cfg.FrameTimeout + time.Duration(float64(n)/float64(cfg.MinFrameRate)*float64(time.Second))
		if n > fr.Buffered() {
			dl.cover(time.Now(), limit)
		}
		c.reserved = 0
		buf, err := fr.ReadBody(n, reserve)
		if err != nil {
			s.queue.Unreserve(c.reserved)
			if errors.Is(err, tcpros.ErrNoRoom) {
				s.queue.Drop("byte budget")
				continue
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = fmt.Errorf("%w: %d-byte frame not read within %v: %w", errStalled, n, limit, err)
			}
			return err
		}
		if c.rcvbufIfSmall > 0 {
			c.fixReadBufferIfSmall(conn, n)
		}
		c.handOn(c.message(info, buf, n))
	}
}

// fixReadBufferIfSmall sets the fixed receive buffer on a connection
// left to autotuning when its first frame, of n bytes, is small
// (readBufferPlan); either way the question is settled.
func (c *pubConn) fixReadBufferIfSmall(conn net.Conn, n int) {
	if tc, ok := conn.(*net.TCPConn); ok && n < smallFrame {
		_ = tc.SetReadBuffer(c.rcvbufIfSmall)
	}
	c.rcvbufIfSmall = 0
}

// message wraps a frame body read whole in a pooled Message.
func (c *pubConn) message(info *PublisherInfo, buf *tcpros.Buffer, n int) *Message {
	s := c.sub
	m := messagePool.Get().(*Message)
	m.Topic = s.topic
	m.Publisher = info
	m.Data = buf.B
	m.Received = time.Now()
	m.buf = buf
	m.release = s.releaseFn
	m.reserved = c.reserved
	s.bytes.Add(uint64(n))
	c.bytes.Add(uint64(n))
	return m
}

// handOn gives m to the Handler on this goroutine, else queues it.
func (c *pubConn) handOn(m *Message) {
	q := c.sub.queue
	if h := c.sub.opts.Handler; h != nil {
		q.Handed()
		h(m)
		return
	}
	q.Deliver(m)
}

// bodyDeadline bounds how long a frame body may take without a timer
// operation per frame: the connection's read deadline is armed for twice
// the limit a body needs and left armed while it still covers the next
// body's limit, so a steady stream re-arms it about once per limit
// (setting and clearing it around every body cost two timer operations
// per message). Between frames an armed deadline may expire while the
// publisher is merely idle: the length read reports it without losing a
// byte (tcpros.FrameReader.ReadLength), and readLoop clears it and waits
// on with no deadline, as before.
type bodyDeadline struct {
	conn  net.Conn
	until time.Time // armed deadline; zero: none
}

// cover makes sure the deadline leaves at least limit from now.
func (d *bodyDeadline) cover(now time.Time, limit time.Duration) {
	if !d.until.IsZero() && d.until.Sub(now) >= limit {
		return
	}
	d.until = now.Add(2 * limit)
	_ = d.conn.SetReadDeadline(d.until)
}

// clearIfArmed removes an armed deadline; false when none was armed (the
// timeout was not ours to forgive).
func (d *bodyDeadline) clearIfArmed() bool {
	if d.until.IsZero() {
		return false
	}
	d.until = time.Time{}
	_ = d.conn.SetReadDeadline(time.Time{})
	return true
}
