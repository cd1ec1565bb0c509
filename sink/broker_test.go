package sink

import (
	"bytes"
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink/wire"
)

// runSink starts s.Run until the test ends and waits for its first
// subscription.
func runSink(t *testing.T, s *Sink) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	poll.Until(t, 10*time.Second, "sink subscribed", func() bool { return s.Stats().Connects > 0 })
}

// publishRaw publishes payloads on topic with QoS 1 as a plain client
// (a robot, or anyone who can publish there).
func publishRaw(t *testing.T, url, clientID, topic string, payloads ...[]byte) {
	t.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID(clientID))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publisher connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	for _, p := range payloads {
		if tok := c.Publish(topic, 1, false, p); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}
}

// chunkedSegment is a segment message of index idx split into chunks.
func chunkedSegment(t *testing.T, idx int64) [][]byte {
	t.Helper()
	b, _ := (&wire.Segment{Index: idx, Label: string(bytes.Repeat([]byte("L"), 5000))}).MarshalMsg(nil)
	p, err := wire.Split(wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, uint64(idx), 1, b), 1100)
	if err != nil || len(p) < 4 {
		t.Fatalf("%d chunks, %v", len(p), err)
	}
	return p
}

// TestWriteFailureIsRedelivered: a message whose files could not be
// written (disk full) is not acknowledged, so the broker redelivers it
// and it lands once the disk has room again, whole or chunked.
func TestWriteFailureIsRedelivered(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	out := t.TempDir()
	s, err := New(Config{Broker: b.URL, Out: out, ClientID: "sink-redeliver"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var full atomic.Bool
	var failures atomic.Int64
	full.Store(true)
	failWrites(s, func() bool {
		if full.Load() {
			failures.Add(1)
			return true
		}
		return false
	}, syscall.ENOSPC)
	runSink(t, s)

	publishRaw(t, b.URL, "robot", topicSeg, enc(t, segEnv(t, 7)))
	publishRaw(t, b.URL, "robot", topicSeg, chunkedSegment(t, 8)...)
	poll.Until(t, 10*time.Second, "failed writes", func() bool { return failures.Load() >= 2 && s.Stats().Retried >= 2 })
	if len(heldSegments(t, out)) != 0 {
		t.Fatal("a segment was written while the disk was full")
	}

	full.Store(false)
	poll.Until(t, 30*time.Second, "redelivery once the disk has room", func() bool {
		h := heldSegments(t, out)
		_, ok7 := h[7]
		_, ok8 := h[8]
		return ok7 && ok8 && s.Stats().Delivered == 2
	})
	if st := s.Stats(); st.Retried < 2 || st.Rejected != 0 {
		t.Errorf("stats %+v", st)
	}
}
