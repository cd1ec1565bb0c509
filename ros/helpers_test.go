package ros

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
)

// testLogger discards logs unless EDGED_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("EDGED_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func testConfig(masterURI string) Config {
	return Config{
		MasterURI:          masterURI,
		NodeName:           "/edged",
		Host:               "127.0.0.1",
		CallTimeout:        2 * time.Second,
		MasterPollInterval: 100 * time.Millisecond,
		ResolveInterval:    2 * time.Second,
		ReconnectMin:       50 * time.Millisecond,
		ReconnectMax:       500 * time.Millisecond,
		Logger:             testLogger(),
	}
}

func startNode(t *testing.T, masterURI string) *Node {
	t.Helper()
	n, err := NewNode(context.Background(), testConfig(masterURI))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func subscribe(t *testing.T, n *Node, opts SubscribeOptions) *Subscription {
	t.Helper()
	s, err := n.Subscribe(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// got is a copy of what a test needs from a received message.
type got struct {
	typ, callerID, def string
	latching           bool
	size               int
	data               []byte
}

// receive waits for count messages on s, copying and releasing each.
func receive(t *testing.T, s *Subscription, count int, timeout time.Duration) []got {
	t.Helper()
	var out []got
	deadline := time.After(timeout)
	for len(out) < count {
		select {
		case m, ok := <-s.Messages():
			if !ok {
				t.Fatalf("%s: channel closed after %d messages", s.Topic(), len(out))
			}
			out = append(out, got{typ: m.Publisher.Type, callerID: m.Publisher.CallerID, def: m.Publisher.MessageDefinition,
				latching: m.Publisher.Latching, size: len(m.Data), data: append([]byte(nil), m.Data...)})
			m.Release()
		case <-deadline:
			t.Fatalf("%s: got %d of %d messages in %s; stats %+v", s.Topic(), len(out), count, timeout, s.Stats())
		}
	}
	return out
}

func requireROS(t *testing.T) {
	t.Helper()
	rostest.Require(t, "rosmaster")
	rostest.RequireRospy(t)
}
