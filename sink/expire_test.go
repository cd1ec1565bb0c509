package sink

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/internal/poll"
)

// gatedList holds List calls under the chunks area until released: a
// slow object store.
type gatedList struct {
	blob.Blobs
	entered chan struct{}
	release chan struct{}
}

func (g gatedList) List(prefix string) ([]blob.Info, error) {
	if strings.HasPrefix(prefix, chunksDir) {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Blobs.List(prefix)
}

// Removing expired staged chunks lists and deletes in the store; that
// must not hold the sink's mutex, which every lane takes for every
// message (on an object store one slow LIST stalled them all).
func TestExpiringStagedChunksDoesNotHoldTheSink(t *testing.T) {
	s := newTestSink(t, Config{Group: "g"})
	g := gatedList{Blobs: s.store, entered: make(chan struct{}, 8), release: make(chan struct{})} // the group scan lists too
	s.store = g
	if _, err := s.store.Put(chunksDir+"r1/id1/abc/000000-00000000", []byte("chunk"), blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.staged[chunksDir+"r1/id1/"] = s.now().Add(-time.Second)
	s.mu.Unlock()
	expired := make(chan struct{})
	go func() { _ = s.Handle("edged/r1/sheet", []byte("not msgpack")); close(expired) }() // any message expires first
	<-g.entered
	locked := make(chan struct{})
	go func() { s.mu.Lock(); _ = len(s.partials); s.mu.Unlock(); close(locked) }() // what every lane does
	poll.Until(t, 10*time.Second, "the sink's mutex free while the store lists", func() bool {
		select {
		case <-locked:
			return true
		default:
			return false
		}
	})
	close(g.release)
	<-expired
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.staged) != 0 || s.expired.Load() != 1 {
		t.Fatalf("staged %v, expired %d: want the directory forgotten and counted once", s.staged, s.expired.Load())
	}
}

// TestExpiryOfMessagesAPeerAssembled: with a group, most messages whose
// chunks a sink staged are assembled by another sink. When they reach
// ChunkTimeout here they are no news: not counted as expired, nothing
// logged, their leftovers removed. Only a message that stayed
// incomplete is reported. (Every such message used to be reported as
// expired, ten minutes after the peer had delivered it.)
func TestExpiryOfMessagesAPeerAssembled(t *testing.T) {
	s := newTestSink(t, Config{Group: "g"})
	put := func(name string) { // as the sink writes them: done marks are empty
		t.Helper()
		var b []byte
		if strings.HasPrefix(name, chunksDir) {
			b = []byte("chunk")
		}
		if _, err := s.store.Put(name, b, blob.Cond{}); err != nil {
			t.Fatal(err)
		}
	}
	put(chunksDir + "r1/left/abc/000000-00000000") // the peer delivered, then failed to remove this
	put(doneDir + "left")
	put(doneDir + "gone") // the peer delivered and removed the chunks
	put(chunksDir + "r1/incomplete/abc/000000-00000000")
	now := time.Now()
	s.now = func() time.Time { return now }
	s.mu.Lock()
	for _, id := range []string{"left", "gone", "incomplete"} {
		s.staged[chunksDir+"r1/"+id+"/"] = now.Add(-time.Second)
	}
	s.mu.Unlock()
	s.expire()
	if n := s.expired.Load(); n != 1 {
		t.Errorf("expired %d, want 1 (only the incomplete message)", n)
	}
	for _, id := range []string{"left", "incomplete"} {
		if l, err := s.store.List(chunksDir + "r1/" + id + "/"); err != nil || len(l) != 0 {
			t.Errorf("%s: staged chunks left %v (%v), want removed", id, l, err)
		}
	}
	if len(s.staged) != 0 {
		t.Errorf("staged %v, want every expired message forgotten", s.staged)
	}
}

// TestExpiredMessagesMakeRoomAtOnce: expire looks through the
// incomplete messages at most once a second, but a chunk that finds the
// caps full must not be refused for messages already past ChunkTimeout
// (a refusal ends the session for a redelivery of everything in flight;
// expiring before every message never refused it).
func TestExpiredMessagesMakeRoomAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"the sink's cap", Config{MaxPartial: 1}},
		{"the robot's cap", Config{MaxPartialPerRobot: 1}},
		{"the sink's bytes", Config{MaxPartialBytes: 600}}, // one chunk (431 bytes)
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.ChunkTimeout = time.Minute
			s := newTestSink(t, tc.cfg)
			now := time.Now()
			s.now = func() time.Time { return now }
			mustHandle(t, s, topicSeg, chunkedSegment(t, 1)[0]) // stays incomplete
			now = now.Add(time.Minute - 500*time.Millisecond)
			mustHandle(t, s, topicSeg, enc(t, segEnv(t, 2))) // any message: expire looks, nothing is due
			now = now.Add(600 * time.Millisecond)            // the first message is past ChunkTimeout
			if err := s.Handle(topicSeg, chunkedSegment(t, 3)[0]); err != nil {
				t.Fatalf("a chunk refused while the caps are held by an expired message: %v", err)
			}
			if n := s.Stats().Expired; n != 1 {
				t.Errorf("expired %d, want 1", n)
			}
		})
	}
}
