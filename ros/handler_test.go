package ros

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// With a Handler, every message is handed over on the goroutine that
// read it, in order, none through Messages(); counted, its bytes given
// back on Release, and Close returns with no call running. The publisher
// idles between two bursts past the body deadline (left armed between
// frames, bodyDeadline): the connection is not cut.
func TestHandlerTakesEveryMessageOnTheReader(t *testing.T) {
	cfg := testConfig("http://127.0.0.1:1/") // no master: the publisher is set directly
	cfg.FrameTimeout = 50 * time.Millisecond
	cfg.MinFrameRate = 1 << 30
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	const burst, size = 5, 200 << 10 // over the reader's 16 KiB read-ahead: the body deadline is armed
	pub := rostest.StartFakePublisher(t, nil, rostest.FakePublisherConfig{NodeName: "/cam", Topic: "/cam", Type: "std_msgs/String",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/cam", "/cam", "std_msgs/String", stringMD5, stringDef, false)
			for i := range 2 * burst {
				if i == burst { // idle for several times the armed deadline
					select {
					case <-ctx.Done():
						return
					case <-time.After(400 * time.Millisecond):
					}
				}
				body := binary.LittleEndian.AppendUint32(make([]byte, 0, size), uint32(i))
				if _, err := conn.Write(rostest.AppendFrame(nil, append(body, make([]byte, size-4)...))); err != nil {
					return
				}
			}
			<-ctx.Done()
		}})
	var (
		mu       sync.Mutex
		seqs     []uint32
		inFlight atomic.Int32
	)
	s := subscribe(t, n, SubscribeOptions{Topic: "/cam", Handler: func(m *Message) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		mu.Lock()
		seqs = append(seqs, binary.LittleEndian.Uint32(m.Data))
		mu.Unlock()
		m.Release()
	}})
	s.setPublishers([]string{pub.URI})
	rostest.WaitFor(t, 10*time.Second, "both bursts handled", func() bool { return s.Stats().Messages == 2*burst })
	mu.Lock()
	for i, seq := range seqs {
		if seq != uint32(i) {
			t.Errorf("message %d has seq %d", i, seq)
		}
	}
	mu.Unlock()
	if st := s.Stats(); st.Errors != 0 || st.Drops != 0 || st.HeldBytes != 0 || st.Reconnects != 0 || len(s.queue.ch) != 0 {
		t.Errorf("stats %+v, %d queued", st, len(s.queue.ch))
	}
	_ = s.Close()
	if inFlight.Load() != 0 {
		t.Error("a Handler call still runs after Close")
	}
	if _, open := <-s.Messages(); open {
		t.Error("Messages() delivered a message or is still open after Close")
	}
}

// deadlineConn counts the read deadlines set on it.
type deadlineConn struct {
	net.Conn
	sets int
}

func (c *deadlineConn) SetReadDeadline(time.Time) error { c.sets++; return nil }

// A steady stream re-arms the body deadline about once per limit, not
// twice per frame; a timeout is forgiven only while one is armed.
func TestBodyDeadlineIsNotSetPerFrame(t *testing.T) {
	conn := &deadlineConn{}
	d := bodyDeadline{conn: conn}
	if d.clearIfArmed() {
		t.Fatal("clearIfArmed with no deadline armed reported one")
	}
	const frames, every, limit = 300, 33 * time.Millisecond, 2 * time.Second // 30 Hz for 10 s
	now := time.Now()
	for range frames {
		d.cover(now, limit)
		if left := d.until.Sub(now); left < limit {
			t.Fatalf("deadline leaves %v, the body needs %v", left, limit)
		}
		now = now.Add(every)
	}
	if want := int(frames*every/limit) + 1; conn.sets > want {
		t.Errorf("%d deadline changes for %d frames, want <= %d", conn.sets, frames, want)
	}
	if !d.clearIfArmed() || d.clearIfArmed() {
		t.Error("clearIfArmed: want true once, then false")
	}
}
