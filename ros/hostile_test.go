package ros

import (
	"context"
	"encoding/binary"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/tcpros"
)

const stringDef = "string data\n"

// A publisher that sends garbage or absurd lengths gets its connection
// closed and counted, without a panic or a big allocation.
func TestHostilePublishers(t *testing.T) {
	rostest.Require(t, "rosmaster")
	tests := []struct {
		name string
		send func(conn net.Conn)
	}{
		{"absurd header length", func(c net.Conn) { _, _ = c.Write([]byte{0xff, 0xff, 0xff, 0xff}) }},
		{"garbage header", func(c net.Conn) { _, _ = c.Write([]byte{8, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 0}) }},
		{"header without type", func(c net.Conn) { _, _ = c.Write(tcpros.EncodeHeader(tcpros.Header{"callerid": "/evil"})) }},
		{"error header", func(c net.Conn) { _, _ = c.Write(tcpros.EncodeHeader(tcpros.Header{"error": "go away"})) }},
		{"absurd frame length", func(c net.Conn) {
			_ = rostest.WritePublisherHeader(c, "/evil", "/hostile", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", stringDef, false)
			_, _ = c.Write(binary.LittleEndian.AppendUint32(nil, 0xfffffff0))
		}},
		{"frame over the cap", func(c net.Conn) {
			_ = rostest.WritePublisherHeader(c, "/evil", "/hostile", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", stringDef, false)
			_, _ = c.Write(binary.LittleEndian.AppendUint32(nil, 2<<20))
		}},
	}
	m := rostest.StartMaster(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := startNode(t, m.URI)
			rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/evil", Topic: "/hostile", Type: "std_msgs/String",
				OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
					tt.send(conn)
					<-ctx.Done() // hold the connection: our side must close it
				}})
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			s := subscribe(t, n, SubscribeOptions{Topic: "/hostile", MaxMessageBytes: 1 << 20})
			rostest.WaitFor(t, 10*time.Second, "errors to be counted", func() bool { return s.Stats().Errors >= 2 })
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 32<<20 {
				t.Errorf("allocated %d MiB for a hostile peer", grown>>20)
			}
			if st := s.Stats(); st.Messages != 0 || st.Publishers != 0 {
				t.Errorf("stats %+v", st)
			}
			_ = n.Close()
		})
	}
}

// A consumer that does not read gets the newest QueueSize messages; the
// rest are dropped and counted, and the reader never blocks.
func TestSlowConsumerDropsOldest(t *testing.T) {
	rostest.Require(t, "rosmaster")
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	const total = 500
	rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/fast", Topic: "/flood", Type: "std_msgs/String",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/fast", "/flood", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", stringDef, false)
			var buf []byte
			for i := 0; i < total; i++ {
				body := binary.LittleEndian.AppendUint32(nil, 4)
				body = binary.LittleEndian.AppendUint32(body, uint32(i))
				buf = rostest.AppendFrame(buf, body)
			}
			_, _ = conn.Write(buf)
			<-ctx.Done()
		}})
	s := subscribe(t, n, SubscribeOptions{Topic: "/flood", QueueSize: 4})
	rostest.WaitFor(t, 10*time.Second, "every message to be read", func() bool { return s.Stats().Messages == total })
	st := s.Stats()
	if st.Drops != total-4 || st.Bytes != total*8 {
		t.Fatalf("stats %+v", st)
	}
	for i := total - 4; i < total; i++ {
		m := <-s.Messages()
		if got := binary.LittleEndian.Uint32(m.Data[4:]); got != uint32(i) {
			t.Fatalf("got message %d, want %d", got, i)
		}
		m.Release()
	}
}

func TestSubscribeErrors(t *testing.T) {
	n := startNode(t, "http://127.0.0.1:1/")
	ctx := context.Background()
	if _, err := n.Subscribe(ctx, SubscribeOptions{}); err == nil {
		t.Error("empty topic accepted")
	}
	if _, err := n.Subscribe(ctx, SubscribeOptions{Topic: "/bad topic"}); err == nil {
		t.Error("bad topic accepted")
	}
	s := subscribe(t, n, SubscribeOptions{Topic: "/x"})
	if _, err := n.Subscribe(ctx, SubscribeOptions{Topic: "x"}); err == nil {
		t.Error("duplicate subscription accepted")
	}
	_ = s.Close()
	if _, ok := <-s.Messages(); ok {
		t.Error("channel open after Close")
	}
	_ = n.Close()
	if _, err := n.Subscribe(ctx, SubscribeOptions{Topic: "/y"}); err == nil {
		t.Error("closed node subscribed")
	}
}
