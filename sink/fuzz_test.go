package sink

import (
	"errors"
	"testing"
)

// FuzzHandle: any topic and payload a broker hands the sink is
// delivered, counted as rejected, or refused for redelivery (ErrRetry);
// never a panic, and every call is counted once as received.
func FuzzHandle(f *testing.F) {
	s, err := New(Config{Out: f.TempDir()}, quiet)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Add(topicSeg, []byte("not msgp"))
	f.Add("edged/arm-01/status", []byte{})
	f.Fuzz(func(t *testing.T, topic string, payload []byte) {
		before := s.Stats()
		err := s.Handle(topic, payload)
		after := s.Stats()
		if after.Received != before.Received+1 {
			t.Fatalf("received %d -> %d for one message", before.Received, after.Received)
		}
		if err != nil && !errors.Is(err, ErrRetry) && after.Rejected != before.Rejected+1 {
			t.Fatalf("rejected without counting it: %v", err)
		}
	})
}
