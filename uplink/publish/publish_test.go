package publish

import (
	"context"
	"github.com/edged-robotics/edged/internal/poll"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// doneToken is a token that completed without error.
type doneToken struct{}

func (doneToken) Wait() bool                     { return true }
func (doneToken) WaitTimeout(time.Duration) bool { return true }
func (doneToken) Error() error                   { return nil }
func (doneToken) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// fakeClient acknowledges every publish at once; a data publish costs
// perMessage (the network), so a large outbox stays a backlog for a
// while.
type fakeClient struct {
	mqtt.Client
	perMessage time.Duration
	mu         sync.Mutex
	statuses   int
	data       int
}

func (c *fakeClient) Publish(topic string, _ byte, _ bool, _ any) mqtt.Token {
	if strings.HasSuffix(topic, "/"+wire.KindStatus) {
		c.mu.Lock()
		c.statuses++
		c.mu.Unlock()
		return doneToken{}
	}
	time.Sleep(c.perMessage)
	c.mu.Lock()
	c.data++
	c.mu.Unlock()
	return doneToken{}
}

func (c *fakeClient) IsConnectionOpen() bool { return true }
func (c *fakeClient) Disconnect(uint)        {}

func openOutbox(t *testing.T) *outbox.Outbox {
	t.Helper()
	ob, err := outbox.Open(outbox.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ob.Close() })
	return ob
}

func envelope(t *testing.T, seq uint64) []byte {
	t.Helper()
	b, err := wire.New(wire.NewID(), "arm-01", "ep", wire.KindSegment, seq, 1, []byte("body")).MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSession runs one session over c until the test ends.
func runSession(t *testing.T, p *Publisher, c mqtt.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.session(ctx, c, make(chan struct{}), newBucket(0)) }()
	t.Cleanup(func() { cancel(); <-done })
}

func newPublisher(ob *outbox.Outbox, status func() wire.Status) *Publisher {
	return &Publisher{cfg: Config{Prefix: "edged", Robot: "arm-01", MaxPayload: 1 << 20, Window: 4,
		AckTimeout: time.Minute, StatusEvery: 5 * time.Millisecond, Now: time.Now}, ob: ob, log: quiet, status: status}
}

// TestStatusRefreshedUnderBacklog: the retained status is refreshed on
// its period while the outbox holds a steady backlog (it used to be
// refreshed only when the publisher had nothing to send).
func TestStatusRefreshedUnderBacklog(t *testing.T) {
	ob := openOutbox(t)
	msgs := make([]outbox.Msg, 3000)
	for i := range msgs {
		msgs[i] = outbox.Msg{Priority: outbox.PriorityControl, Data: envelope(t, uint64(i))}
	}
	if _, err := ob.Put(msgs...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var backlogs []int64
	status := func() wire.Status {
		s := ob.Stats()
		mu.Lock()
		defer mu.Unlock()
		if s.Pending > 0 {
			backlogs = append(backlogs, int64(s.Pending))
		}
		return wire.Status{Backlog: int64(s.Pending)}
	}
	c := &fakeClient{perMessage: time.Millisecond}
	runSession(t, newPublisher(ob, status), c)
	poll.Until(t, 10*time.Second, "three statuses during the backlog", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(backlogs) >= 3
	})
	mu.Lock()
	defer mu.Unlock()
	if backlogs[0] == backlogs[len(backlogs)-1] {
		t.Errorf("status backlog stayed at %d: not refreshed", backlogs[0])
	}
}

// TestCorruptMessageIsDroppedNotAcked: a message that does not decode
// is dropped from the outbox and counted as dropped, not as
// acknowledged by the broker.
func TestCorruptMessageIsDroppedNotAcked(t *testing.T) {
	ob := openOutbox(t)
	if _, err := ob.Put(outbox.Msg{Priority: outbox.PriorityControl, Data: []byte("not an envelope")},
		outbox.Msg{Priority: outbox.PriorityControl, Data: envelope(t, 1)}); err != nil {
		t.Fatal(err)
	}
	p := newPublisher(ob, nil)
	p.status = func() wire.Status { return wire.Status{} }
	runSession(t, p, &fakeClient{})
	poll.Until(t, 10*time.Second, "the outbox to drain", func() bool { return ob.Stats().Pending == 0 })
	if s := ob.Stats(); s.Acked != 1 || s.Dropped != 1 {
		t.Fatalf("acked %d dropped %d, want 1 and 1", s.Acked, s.Dropped)
	}
	if s := p.Stats(); s.Corrupt != 1 || s.Published != 1 {
		t.Fatalf("publisher corrupt %d published %d, want 1 and 1", s.Corrupt, s.Published)
	}
}

// decodeStatus is the status a status payload carries.
func decodeStatus(t *testing.T, b []byte) wire.Status {
	t.Helper()
	var e wire.Envelope
	if _, err := e.UnmarshalMsg(b); err != nil {
		t.Fatal(err)
	}
	var st wire.Status
	if _, err := st.UnmarshalMsg(e.Body); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStatusesCarryTheirConnection: every status of a connection, and
// its will, carry the connection's start (wire.Status.Session), and
// "offline" is the connection's final word: the will, composed before
// the connection's "online"s, still outranks them at the sink.
func TestStatusesCarryTheirConnection(t *testing.T) {
	p := newPublisher(openOutbox(t), func() wire.Status { return wire.Status{} })
	p.sessionStart.Store(7)
	will := decodeStatus(t, p.statusPayload("offline"))
	online := decodeStatus(t, p.statusPayload("online"))
	if will.Session != 7 || online.Session != 7 || !will.Final || online.Final {
		t.Fatalf("will %+v, online %+v: want session 7 on both, only the will final", will, online)
	}
	if !will.Newer(online) || online.Newer(will) {
		t.Error("the will does not outrank its connection's later online")
	}
	p.sessionStart.Store(8) // the next connection
	if next := decodeStatus(t, p.statusPayload("online")); !next.Newer(will) {
		t.Error("the next connection's online does not outrank the last one's will")
	}
}

// TestSessionsIncreaseWhatTheClockDoes: a connection's session must
// outrank the one before it, or the sink keeps the older connection's
// will and shows the robot offline while it works. Sessions are stamped
// with the wall clock, which may step back while the robot runs (NTP
// correcting a clock that was ahead) or stand still between two
// connections.
func TestSessionsIncreaseWhatTheClockDoes(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		step time.Duration // of the clock between the two connections
	}{
		{"the clock moves on", time.Minute},
		{"the clock stands still", 0},
		{"the clock steps back", -time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPublisher(openOutbox(t), func() wire.Status { return wire.Status{} })
			p.cfg.Broker = "tcp://127.0.0.1:1" // refused: only the session stamp matters
			now := t0
			p.cfg.Now = func() time.Time { return now }
			_, _, _ = p.connect()
			will := decodeStatus(t, p.statusPayload("offline"))
			now = now.Add(tc.step)
			_, _, _ = p.connect()
			if online := decodeStatus(t, p.statusPayload("online")); !online.Newer(will) {
				t.Errorf("the next connection's online (session %d) does not outrank the last one's will (session %d)", online.Session, will.Session)
			}
		})
	}
}
