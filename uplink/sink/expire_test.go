package sink

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/poll"
)

// gatedList holds List calls under the chunks area until released: a
// slow object store.
type gatedList struct {
	episode.Blobs
	entered chan struct{}
	release chan struct{}
}

func (g gatedList) List(prefix string) ([]episode.BlobInfo, error) {
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
	g := gatedList{Blobs: s.store, entered: make(chan struct{}), release: make(chan struct{})}
	s.store = g
	s.mu.Lock()
	s.staged[chunksDir+"r1/id1/abc/"] = s.now().Add(-time.Second)
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
