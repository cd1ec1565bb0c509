package ros

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/tcpros"
	"github.com/edged-robotics/edged/ros/xmlrpc"
)

const stringMD5 = "992ce8a1687cec8c8bd883ec73ca41d1"

// stringFrame is one std_msgs/String frame of size bytes of text.
func stringFrame(size int) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(size))
	body = append(body, bytes.Repeat([]byte{'x'}, size)...)
	return rostest.AppendFrame(nil, body)
}

func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// One publisher flooding a topic with large messages nobody reads holds
// at most QueueBytes, whatever QueueSize allows, and the drops are
// counted (the finding: 1024 x 63 MiB strings, drops at 0).
func TestQueueBytesBoundAFlood(t *testing.T) {
	rostest.Require(t, "rosmaster")
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	const total, size = 64, 512 << 10
	rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/flood", Topic: "/state", Type: "std_msgs/String",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/flood", "/state", "std_msgs/String", stringMD5, stringDef, false)
			frame := stringFrame(size)
			for i := 0; i < total; i++ {
				if _, err := conn.Write(frame); err != nil {
					return
				}
			}
			<-ctx.Done()
		}})
	const budget = 2 << 20
	s := subscribe(t, n, SubscribeOptions{Topic: "/state", QueueSize: 1024, MaxMessageBytes: 1 << 20, QueueBytes: budget})
	rostest.WaitFor(t, 10*time.Second, "every message to be read or dropped", func() bool {
		st := s.Stats()
		return st.Messages == total
	})
	st := s.Stats()
	if st.HeldBytes > budget || len(s.queue.ch)*(size+4) > budget {
		t.Errorf("holding %d bytes in %d messages, budget %d", st.HeldBytes, len(s.queue.ch), budget)
	}
	if want := uint64(total - budget/(size+4)); st.Drops < want {
		t.Errorf("drops %d, want >= %d", st.Drops, want)
	}
	for len(s.queue.ch) > 0 {
		(<-s.queue.ch).Release()
	}
	if h := s.Stats().HeldBytes; h != 0 {
		t.Errorf("%d bytes still held after releasing everything", h)
	}
}

// Publishers that announce a large frame and stall pin only what they
// sent (bounded steps), never more than QueueBytes together, and are
// cut off by the frame deadline (the finding: 12 stalled = 830 MB).
func TestStalledPublishersAreBoundedAndCut(t *testing.T) {
	rostest.Require(t, "rosmaster")
	m := rostest.StartMaster(t)
	cfg := testConfig(m.URI)
	cfg.FrameTimeout = 300 * time.Millisecond
	cfg.MinFrameRate = 1 << 30
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	const stalled, announced, sent = 12, 60 << 20, 1<<20 + 1
	var pubs []*rostest.FakePublisher
	for i := 0; i < stalled; i++ {
		name := fmt.Sprintf("/stall%d", i)
		pubs = append(pubs, rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: name, Topic: "/cam", Type: "std_msgs/String",
			OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
				_ = rostest.WritePublisherHeader(conn, name, "/cam", "std_msgs/String", stringMD5, stringDef, false)
				_, _ = conn.Write(binary.LittleEndian.AppendUint32(nil, announced))
				_, _ = conn.Write(make([]byte, sent))
				<-ctx.Done()
			}}))
	}
	before := allocated()
	s := subscribe(t, n, SubscribeOptions{Topic: "/cam"})
	var peak atomic.Int64
	rostest.WaitFor(t, 20*time.Second, "every stalled publisher to be cut off", func() bool {
		st := s.Stats()
		peak.Store(max(peak.Load(), st.HeldBytes))
		return st.Errors >= stalled
	})
	// before: 12 x 60 MiB = 720 MiB; now 4 MiB each, and again for those
	// that reconnected and stalled again
	if grown := allocated() - before; grown > 256<<20 {
		t.Errorf("allocated %d MiB for %d stalled publishers", grown>>20, stalled)
	}
	if p := peak.Load(); p > stalled*4*tcpros.GrowStep {
		t.Errorf("held %d MiB at the peak", p>>20)
	}
	for _, p := range pubs {
		p.Close()
	}
	rostest.WaitFor(t, 10*time.Second, "the reservations to be returned", func() bool { return s.Stats().HeldBytes == 0 })
}

// A slow but alive publisher (a large frame trickling in) is not cut off.
func TestSlowPublisherIsNotCut(t *testing.T) {
	rostest.Require(t, "rosmaster")
	m := rostest.StartMaster(t)
	cfg := testConfig(m.URI)
	cfg.FrameTimeout = 300 * time.Millisecond
	cfg.MinFrameRate = 8 << 10 // 16 KiB: 2.3 s allowed
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	frame := stringFrame(16 << 10)
	rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/slow", Topic: "/slow", Type: "std_msgs/String",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/slow", "/slow", "std_msgs/String", stringMD5, stringDef, false)
			for off := 0; off < len(frame); off += 4 << 10 { // 1 s in all, over FrameTimeout
				if _, err := conn.Write(frame[off:min(off+4<<10, len(frame))]); err != nil {
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(250 * time.Millisecond):
				}
			}
			<-ctx.Done()
		}})
	s := subscribe(t, n, SubscribeOptions{Topic: "/slow"})
	got := receive(t, s, 1, 10*time.Second)
	if got[0].size != 4+16<<10 || s.Stats().Errors != 0 {
		t.Fatalf("got %d bytes, stats %+v", got[0].size, s.Stats())
	}
}

// publisherUpdate with 50,000 URIs (fake, duplicated, junk) starts at
// most MaxPublishers connections and counts the rest.
func TestPublisherUpdateIsCapped(t *testing.T) {
	n := startNode(t, "http://127.0.0.1:1/")
	s := subscribe(t, n, SubscribeOptions{Topic: "/t", MaxPublishers: 8})
	uris := make([]any, 0, 50000)
	for i := 0; len(uris) < 50000; i++ {
		uris = append(uris, fmt.Sprintf("http://127.0.0.1:%d/", 1+i%20), "not a uri")
	}
	if _, err := xmlrpc.NewClient(n.URI()).Call(context.Background(), "publisherUpdate", "/master", "/t", uris); err != nil {
		t.Fatal(err)
	}
	if got := len(s.Publishers()); got != 8 {
		t.Errorf("%d publishers, want the cap of 8", got)
	}
	if r := s.Stats().RefusedPublishers; r < 25000 { // the junk at least
		t.Errorf("refused %d", r)
	}
	if g := runtime.NumGoroutine(); g > 200 {
		t.Errorf("%d goroutines", g)
	}
}

// lineCounter counts log lines containing a substring.
type lineCounter struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.lines = append(l.lines, string(p))
	l.mu.Unlock()
	return len(p), nil
}

func (l *lineCounter) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, sub) {
			n++
		}
	}
	return n
}

// A publisher that fails every frame is retried with a growing backoff
// (not every ReconnectMin) and logged once, not twice per attempt.
func TestFailingPublisherBacksOffQuietly(t *testing.T) {
	rostest.Require(t, "rosmaster")
	m := rostest.StartMaster(t)
	logs := &lineCounter{}
	cfg := testConfig(m.URI)
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/bad", Topic: "/bad", Type: "std_msgs/String",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/bad", "/bad", "std_msgs/String", stringMD5, stringDef, false)
			_, _ = conn.Write(binary.LittleEndian.AppendUint32(nil, 2<<20)) // over the cap
			<-ctx.Done()
		}})
	start := time.Now()
	s := subscribe(t, n, SubscribeOptions{Topic: "/bad", MaxMessageBytes: 1 << 20})
	rostest.WaitFor(t, 20*time.Second, "six failed sessions", func() bool { return s.Stats().Errors >= 6 })
	// backoff 50, 100, 200, 400, 500 ms between the six: >= 1.25 s
	if el := time.Since(start); el < 1200*time.Millisecond {
		t.Errorf("six failed sessions in %v: no backoff", el)
	}
	if c, b := logs.count("connected to publisher"), logs.count("closed a bad publisher"); c > 1 || b > 1 {
		t.Errorf("%d connected and %d bad-connection log lines for six sessions", c, b)
	}
}

// A publisher URI that never answers is retried up to UnreachableMax
// apart, not ReconnectMax.
func TestUnreachablePublisherBacksOffFurther(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var attempts []time.Time
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			attempts = append(attempts, time.Now())
			mu.Unlock()
			_ = c.Close() // an XML-RPC call that always fails
		}
	}()
	cfg := testConfig("http://127.0.0.1:1/")
	cfg.UnreachableMax = 2 * time.Second
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	s := subscribe(t, n, SubscribeOptions{Topic: "/t"})
	s.setPublishers([]string{"http://" + ln.Addr().String() + "/"})
	rostest.WaitFor(t, 20*time.Second, "seven attempts", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(attempts) >= 7
	})
	mu.Lock()
	gap := attempts[6].Sub(attempts[5])
	mu.Unlock()
	// 50 ms doubling: the sixth wait is 1.6 s (ReconnectMax would be 500 ms)
	if gap < time.Second {
		t.Errorf("last gap %v: backoff capped at ReconnectMax", gap)
	}
}

// A node started before its master learns a watched parameter's value
// when the master appears (the finding: never switched to sim time).
func TestParamWatchWhenMasterAppears(t *testing.T) {
	rostest.Require(t, "rosmaster")
	port := rostest.FreePort(t)
	cfg := testConfig(fmt.Sprintf("http://127.0.0.1:%d/", port))
	cfg.MasterPollInterval = time.Second // the parameter is set before the node looks
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	var seen atomic.Value
	if _, err := n.SubscribeParam(context.Background(), "/use_sim_time", func(v any) { seen.Store(fmt.Sprint(v)) }); err == nil {
		t.Fatal("subscribed without a master")
	}
	m := rostest.StartMasterOnPort(t, port)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	rostest.WaitFor(t, 10*time.Second, "the value", func() bool { return seen.Load() == "true" })
}
