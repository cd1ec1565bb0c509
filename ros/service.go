package ros

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/ros/tcpros"
)

// AdvertiseService provides a service on the same TCPROS server
// (registered as rosrpc://HOST:PORT): each request frame is capped at
// MaxHeaderBytes and read under CallTimeout; the handler's answer or
// error goes back as TCPROS's ok byte and frame. ServeLogLevel uses
// it for roscpp's ~get_loggers and ~set_logger_level over a
// slog.LevelVar.

// ServiceOptions describe a service the node provides over TCPROS.
type ServiceOptions struct {
	Name         string // resolved like a topic (~get_loggers: under the node)
	Type         string // e.g. roscpp/GetLoggers
	MD5Sum       string
	RequestType  string
	ResponseType string
}

// ServiceHandler answers one serialized request with a serialized
// response, or an error sent to the caller as the failure message. It
// runs on the connection's goroutine and must not block for long.
type ServiceHandler func(req []byte) ([]byte, error)

// Service is a registered service.
type Service struct {
	opts    ServiceOptions
	name    string
	handler ServiceHandler
}

// AdvertiseService provides a service: registered with the master now if
// it is up, else when it appears (and after every restart); calls arrive
// on the node's TCPROS server.
func (n *Node) AdvertiseService(opts ServiceOptions, h ServiceHandler) (*Service, error) {
	if opts.Name == "" || opts.Type == "" || opts.MD5Sum == "" || h == nil {
		return nil, errors.New("ros: AdvertiseService needs a name, a type, an md5sum and a handler")
	}
	name := n.ResolveTopic(opts.Name)
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("ros: service: %w", err)
	}
	s := &Service{opts: opts, name: name, handler: h}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, errors.New("ros: node is closed")
	}
	if _, dup := n.services[name]; dup {
		n.mu.Unlock()
		return nil, fmt.Errorf("ros: already providing %s", name)
	}
	n.services[name] = s
	n.mu.Unlock()
	if n.MasterUp() {
		if err := n.registerService(n.ctx, s); err != nil {
			n.log.Warn("ros: registering service failed; will retry", "service", name, "err", err)
		}
	}
	return s, nil
}

// serviceAPI is the rosrpc:// URI of the node's TCPROS server.
func (n *Node) serviceAPI() string {
	return "rosrpc://" + net.JoinHostPort(n.cfg.Host, strconv.Itoa(n.tln.Addr().(*net.TCPAddr).Port))
}

func (n *Node) registerService(ctx context.Context, s *Service) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.CallTimeout)
	defer cancel()
	return n.master.RegisterService(ctx, s.name, n.serviceAPI(), n.uri)
}

func (n *Node) unregisterServices() {
	if !n.MasterUp() {
		return
	}
	for _, s := range n.serviceList() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(n.ctx), n.cfg.CallTimeout)
		_ = n.master.UnregisterService(ctx, s.name, n.serviceAPI())
		cancel()
	}
}

// serveService answers the calls on a service connection whose header
// h was read: the header, then request frames (one, or many when the
// caller asked for a persistent connection), each capped at
// MaxHeaderBytes and read under CallTimeout.
func (n *Node) serveService(conn net.Conn, h tcpros.Header) error {
	defer conn.Close()
	s := n.service(h["service"])
	if s == nil {
		return n.refuse(conn, fmt.Sprintf("edged does not provide [%s]", h["service"]))
	}
	if md5 := h["md5sum"]; md5 != "*" && md5 != s.opts.MD5Sum {
		return n.refuse(conn, fmt.Sprintf("md5sum mismatch on %s: edged provides %s (%s), the caller wants %s", s.name, s.opts.Type, s.opts.MD5Sum, md5))
	}
	if h["probe"] == "1" { // rosservice info/type asks for the header only
		_, err := conn.Write(tcpros.EncodeHeader(s.header(n.name)))
		return err
	}
	if _, err := conn.Write(tcpros.EncodeHeader(s.header(n.name))); err != nil {
		return err
	}
	persistent := h["persistent"] == "1"
	for {
		_ = conn.SetDeadline(time.Now().Add(n.cfg.CallTimeout))
		req, err := readFrame(conn, n.cfg.MaxHeaderBytes)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		resp, herr := s.handler(req)
		if err := writeServiceResponse(conn, resp, herr); err != nil {
			return err
		}
		if !persistent {
			return nil
		}
	}
}

func (s *Service) header(caller string) tcpros.Header {
	return tcpros.Header{"callerid": caller, "md5sum": s.opts.MD5Sum, "type": s.opts.Type,
		"request_type": s.opts.RequestType, "response_type": s.opts.ResponseType}
}

// readFrame reads one length-prefixed frame of at most max bytes.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(l[:])
	if int64(size) > int64(max) {
		return nil, fmt.Errorf("ros: a service request of %d bytes is over the cap of %d", size, max)
	}
	b := make([]byte, size)
	_, err := io.ReadFull(r, b)
	return b, err
}

// writeServiceResponse writes TCPROS's service answer: an ok byte, then
// the response or the error text as a length-prefixed frame.
func writeServiceResponse(w io.Writer, resp []byte, err error) error {
	ok := byte(1)
	if err != nil {
		ok, resp = 0, []byte(err.Error())
	}
	b := make([]byte, 0, 5+len(resp))
	b = append(b, ok)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(resp)))
	_, werr := w.Write(append(b, resp...))
	return werr
}
