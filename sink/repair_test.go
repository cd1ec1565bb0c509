package sink

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// An end manifest of an episode held complete that arrives again is
// acknowledged again when the robot asks (it waits resend_after), not
// when it is the end that completed it, repeated by the transport (a
// redelivery, or a robot that published its last message again after a
// reconnect): each sink of a group would ack it once more.
func TestRepeatedEndReacked(t *testing.T) {
	s := newTestSink(t, Config{})
	now := time.Now()
	s.now = func() time.Time { return now }
	completeEpisode(t, s)
	b, _ := (&wire.Manifest{ID: testEp, Robot: "arm-01", Start: 1, Closed: true, Outcome: "completed"}).MarshalMsg(nil)
	end := enc(t, wire.New(wire.NewID(), "arm-01", testEp, wire.KindEpisodeEnd, 1, 1, b))
	mustHandle(t, s, "edged/arm-01/episode_end", end) // a peer's view: a new id, at once
	if n := s.Stats().Reacks; n != 0 {
		t.Fatalf("the end repeated at once was acknowledged again (%d)", n)
	}
	now = now.Add(time.Minute)
	s.endLooked = map[string]time.Time{}
	mustHandle(t, s, "edged/arm-01/episode_end", end) // the robot asks again, later
	if n := s.Stats().Reacks; n != 1 {
		t.Fatalf("the robot's repeated end was acknowledged again %d times, want 1", n)
	}
}
