package rostest

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/tcpros"
	"github.com/edged-robotics/edged/ros/xmlrpc"
)

// FakePublisher is a Go TCPROS publisher of one topic: a slave API that
// answers requestTopic and a TCPROS listener. What a subscriber receives
// is up to OnConnect, so it can publish real messages fast (benchmarks)
// or send garbage (hostile-peer tests).
type FakePublisher struct {
	URI      string // slave API
	TCPAddr  string // TCPROS listener
	NodeName string
	Topic    string

	onConnect func(ctx context.Context, conn net.Conn, sub tcpros.Header)
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[net.Conn]struct{}
	http      *http.Server
	tcp       net.Listener
	rpcL      net.Listener
}

// FakePublisherConfig configures StartFakePublisher.
type FakePublisherConfig struct {
	NodeName, Topic, Type string
	// OnConnect runs on its own goroutine for each subscriber connection,
	// after the subscriber's header was read; it owns conn until it
	// returns (then conn is closed). ctx ends when the publisher closes.
	OnConnect func(ctx context.Context, conn net.Conn, sub tcpros.Header)
}

// StartFakePublisher starts the publisher on loopback and, if m is not
// nil, registers it with m's master.
func StartFakePublisher(t testing.TB, m *Master, cfg FakePublisherConfig) *FakePublisher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &FakePublisher{NodeName: cfg.NodeName, Topic: cfg.Topic, onConnect: cfg.OnConnect,
		ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	var err error
	if p.tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if p.rpcL, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	p.TCPAddr = p.tcp.Addr().String()
	p.URI = fmt.Sprintf("http://%s/", p.rpcL.Addr())
	srv := xmlrpc.NewServer()
	port := p.tcp.Addr().(*net.TCPAddr).Port
	srv.Register("requestTopic", func(context.Context, []any) (any, error) {
		return []any{1, "ready", []any{"TCPROS", "127.0.0.1", port}}, nil
	})
	srv.Register("getPid", func(context.Context, []any) (any, error) { return []any{1, "", os.Getpid()}, nil })
	for _, name := range []string{"shutdown", "publisherUpdate", "paramUpdate"} {
		srv.Register(name, func(context.Context, []any) (any, error) { return []any{1, "", 0}, nil })
	}
	p.http = &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	p.wg.Add(2)
	go func() { defer p.wg.Done(); _ = p.http.Serve(p.rpcL) }()
	go p.acceptLoop()
	t.Cleanup(p.Close)
	if m != nil {
		c := xmlrpc.NewClient(m.URI)
		if _, err := master.Call(context.Background(), c, "registerPublisher", cfg.NodeName, cfg.Topic, cfg.Type, p.URI); err != nil {
			t.Fatalf("registering fake publisher: %v", err)
		}
	}
	return p
}

func (p *FakePublisher) acceptLoop() {
	defer p.wg.Done()
	for {
		conn, err := p.tcp.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns[conn] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() {
				conn.Close()
				p.mu.Lock()
				delete(p.conns, conn)
				p.mu.Unlock()
			}()
			h, err := tcpros.ReadHeader(conn, 0)
			if err != nil {
				return
			}
			if p.onConnect != nil {
				p.onConnect(p.ctx, conn, h)
			}
		}()
	}
}

// Connections is the number of open subscriber connections.
func (p *FakePublisher) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Close stops listening, closes every connection and waits.
func (p *FakePublisher) Close() {
	p.cancel()
	_ = p.http.Close()
	_ = p.tcp.Close()
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// WritePublisherHeader answers a subscriber's header.
func WritePublisherHeader(conn net.Conn, callerID, topic, typ, md5, definition string, latching bool) error {
	h := tcpros.Header{"callerid": callerID, "topic": topic, "type": typ, "md5sum": md5,
		"message_definition": definition, "latching": "0"}
	if latching {
		h["latching"] = "1"
	}
	_, err := conn.Write(tcpros.EncodeHeader(h))
	return err
}

// AppendFrame appends body with its 4-byte little-endian length.
func AppendFrame(dst, body []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...)
}
