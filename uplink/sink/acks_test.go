package sink

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// slowToken is a publish whose PUBACK comes when the test says so.
type slowToken struct {
	done chan struct{}
	err  error
}

func (t *slowToken) Wait() bool { <-t.done; return true }
func (t *slowToken) WaitTimeout(d time.Duration) bool {
	select {
	case <-t.done:
		return true
	case <-time.After(d):
		return false
	}
}
func (t *slowToken) Done() <-chan struct{} { return t.done }
func (t *slowToken) Error() error          { return t.err }

// ackClient records the acknowledgements published through it.
type ackClient struct {
	mqtt.Client
	mu     sync.Mutex
	tokens []*slowToken
}

func (c *ackClient) Publish(string, byte, bool, any) mqtt.Token {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &slowToken{done: make(chan struct{})}
	c.tokens = append(c.tokens, t)
	return t
}

func (c *ackClient) published() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tokens)
}

// TestSlowAckIsNotRepublished: an acknowledgement whose PUBACK is late
// (a loaded broker or sink) is waited for again, not published again:
// the fleet benchmark counted robots acknowledged twice under load. One
// the broker refused is published again, and a new session publishes
// again what the old one could not confirm.
func TestSlowAckIsNotRepublished(t *testing.T) {
	s := newTestSink(t, Config{Out: t.TempDir()})
	s.ackWait = 10 * time.Millisecond
	ctx := context.Background()
	c := &ackClient{}
	s.completed("arm-01", testEp)
	s.publishAcks(ctx, c)
	s.publishAcks(ctx, c)
	if n := c.published(); n != 1 {
		t.Fatalf("a late PUBACK: published %d times, want once", n)
	}
	c.tokens[0].err = errors.New("refused")
	close(c.tokens[0].done)
	s.publishAcks(ctx, c) // sees the refusal
	s.publishAcks(ctx, c) // the next try
	if n := c.published(); n != 2 || s.Stats().Acked != 0 {
		t.Fatalf("after a refusal: published %d times (want 2), acked %d", n, s.Stats().Acked)
	}
	next := &ackClient{} // a new session
	s.publishAcks(ctx, next)
	if n := next.published(); n != 1 {
		t.Fatalf("a new session published %d times, want once", n)
	}
	close(next.tokens[0].done)
	s.publishAcks(ctx, next)
	if n := next.published(); n != 1 || s.Stats().Acked != 1 {
		t.Errorf("confirmed: published %d times (want 1), acked %d (want 1)", n, s.Stats().Acked)
	}
}
