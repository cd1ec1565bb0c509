package uplink

import (
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

// fakeClock advances by step at every reading.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// TestInjectedClock: envelopes are dated and Flush's deadline measured
// on Config.Now's clock, not the wall clock.
func TestInjectedClock(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	broker := "tcp://" + l.Addr().String()
	l.Close() // a broker that refuses: the publisher never takes the message
	start := time.Unix(1700000000, 0)
	clock := &fakeClock{now: start, step: time.Hour}
	u, err := New(Config{Robot: "arm-01", Dir: t.TempDir(), Broker: broker, Now: clock.Now,
		MinBackoff: time.Hour, MaxBackoff: time.Hour},
		Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.Enqueue(Message{Priority: outbox.PriorityControl, Episode: "ep-1", Kind: wire.KindSegment, Body: []byte("b")}); err != nil {
		t.Fatal(err)
	}
	// Each reading is an hour later: a day's timeout is over after a
	// few polls, whatever the wall clock says.
	if u.Flush(24 * time.Hour) {
		t.Fatal("Flush reported an empty outbox")
	}
	it, ok, err := u.ob.TryNext()
	if err != nil || !ok {
		t.Fatalf("TryNext: %v %v", ok, err)
	}
	env, err := wire.Decode(it.Data, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Other goroutines (the connection's backoff) read the clock too, an
	// hour a reading, as many times as the scheduler lets them before
	// Enqueue: any time within weeks of start is the injected clock's
	// (the wall clock is years later).
	if created := time.Unix(0, env.Created); created.Before(start) || created.After(start.Add(1000*time.Hour)) {
		t.Errorf("envelope created %v, want the injected clock's (from %v)", created, start)
	}
}
