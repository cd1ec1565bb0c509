package ros

import (
	"io"
	"log/slog"
	"testing"
)

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A consumer that has received a message sees it counted: the CI run of
// the ROS 2 live test read Messages one short right after receiving the
// last frame (the count was raised after the send).
func TestQueueCountsBeforeTheConsumerSees(t *testing.T) {
	const n = 20000
	q := NewQueue("/t", 1, 1<<20, discardLog(), "ros")
	go func() {
		for range n {
			q.Deliver(&Message{})
		}
		q.Close()
	}()
	got := uint64(0)
	for m := range q.C() {
		got++
		dropped := q.Drops() // before Messages: both only grow
		if seen := q.Messages(); seen < got+dropped {
			t.Fatalf("received %d (+%d dropped) but Messages says %d", got, dropped, seen)
		}
		m.Release()
	}
	if got+q.Drops() != n || q.Messages() != n {
		t.Fatalf("received %d + dropped %d, counted %d, want %d", got, q.Drops(), q.Messages(), n)
	}
}

// Tests of the budget: a full queue drops the oldest to make room for
// bytes, and refuses when nothing queued can be dropped.
func TestQueueByteBudget(t *testing.T) {
	q := NewQueue("/t", 4, 100, discardLog(), "ros")
	for _, tc := range []struct {
		reserve int
		ok      bool
		held    int64
		drops   uint64
	}{
		{60, true, 60, 0},
		{40, true, 100, 0},
		{1, false, 100, 0}, // nothing queued to drop: refused
	} {
		if ok := q.Reserve(tc.reserve); ok != tc.ok || q.Held() != tc.held || q.Drops() != tc.drops {
			t.Fatalf("Reserve(%d) = %v held %d drops %d, want %v %d %d", tc.reserve, ok, q.Held(), q.Drops(), tc.ok, tc.held, tc.drops)
		}
	}
	m := &Message{}
	m.SetRelease(func(*Message) { q.Unreserve(60) })
	q.Deliver(m)
	if !q.Reserve(50) || q.Drops() != 1 || q.Held() != 90 {
		t.Fatalf("Reserve with a queued 60-byte message: drops %d held %d, want 1 90", q.Drops(), q.Held())
	}
}
