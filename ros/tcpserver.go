package ros

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/edged-robotics/edged/ros/tcpros"
)

// maxHandshakes caps the subscriber handshakes under way at once.
const maxHandshakes = 32

// serveTCPROS accepts subscribers of the node's publications until the
// node closes. Each connection's header is read under CallTimeout and
// capped at MaxHeaderBytes before anything else is done with it.
func (n *Node) serveTCPROS() {
	defer n.wg.Done()
	for {
		conn, err := n.tln.Accept()
		if err != nil {
			if n.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				n.log.Error("ros: TCPROS server stopped; nobody can subscribe to edged's topics", "err", err)
			}
			return
		}
		select {
		case n.handshakes <- struct{}{}:
		default: // a flood of connections: refuse past the cap
			_ = conn.Close()
			continue
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			defer func() { <-n.handshakes }()
			if err := n.handshakeSubscriber(conn); err != nil {
				_ = conn.Close()
				if ok, suppressed := n.refusedSubs.Allow(); ok {
					n.log.Warn("ros: refused a subscriber", "remote", conn.RemoteAddr().String(), "err", err, "suppressed", suppressed)
				}
			}
		}()
	}
}

// handshakeSubscriber reads a subscriber's header and hands the
// connection to the publication it asks for, or answers with an error.
func (n *Node) handshakeSubscriber(conn net.Conn) error {
	_ = conn.SetDeadline(time.Now().Add(n.cfg.CallTimeout))
	h, err := tcpros.ReadHeader(conn, n.cfg.MaxHeaderBytes)
	if err != nil {
		return err
	}
	if _, svc := h["service"]; svc {
		return n.serveService(conn, h)
	}
	topic := h["topic"]
	p := n.publication(topic)
	if p == nil {
		return n.refuse(conn, fmt.Sprintf("edged does not publish [%s]", topic))
	}
	if md5 := h["md5sum"]; md5 != "*" && md5 != p.opts.MD5Sum {
		return n.refuse(conn, fmt.Sprintf("md5sum mismatch on %s: edged publishes %s (%s), the subscriber wants %s", topic, p.opts.Type, p.opts.MD5Sum, md5))
	}
	return p.accept(conn, h["callerid"])
}

// refuse answers a connection header with an error header.
func (n *Node) refuse(conn net.Conn, msg string) error {
	_, _ = conn.Write(tcpros.EncodeHeader(tcpros.Header{"error": msg}))
	return errors.New(msg)
}
