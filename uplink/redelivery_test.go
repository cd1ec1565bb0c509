package uplink_test

import (
	"sync"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Helpers for tests whose messages are delivered more than once (a
// broker restart): at least once is the contract, exactly once the
// store's effects.

// distinct counts the ids delivered.
func (r *receiver) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// repeats counts the deliveries of ids delivered before.
func (r *receiver) repeats() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got) - len(r.seen)
}

// checkAtLeastOnceInOrder: the contract of a run with redeliveries (a
// broker restart): per (episode, kind) the first arrivals of the ids
// ascend; an id may arrive again. It returns the distinct ids and the
// repeated deliveries.
func (r *receiver) checkAtLeastOnceInOrder(t *testing.T) (distinct, repeats int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	last := map[string]int64{}
	first := map[string]bool{}
	for _, e := range r.got {
		if first[e.ID] {
			repeats++
			continue
		}
		first[e.ID] = true
		k := e.Episode + "/" + e.Kind
		if prev, ok := last[k]; ok && int64(e.Seq) <= prev {
			t.Errorf("%s: seq %d first arrived after %d", k, e.Seq, prev)
		}
		last[k] = int64(e.Seq)
	}
	return len(first), repeats
}

// sheetAfterEndHold is a sink's delivery hook that holds the first
// sheet delivered after the episode's end in the hook (delivered and its
// id logged, not yet acknowledged to the broker: the sink acknowledges
// after the hook) until release.
type sheetAfterEndHold struct {
	endIn, hold, unblock      sync.Once
	endDelivered, holding, rc chan struct{}
}

func newSheetAfterEndHold() *sheetAfterEndHold {
	return &sheetAfterEndHold{endDelivered: make(chan struct{}), holding: make(chan struct{}), rc: make(chan struct{})}
}

func (h *sheetAfterEndHold) hook(e *wire.Envelope) {
	switch {
	case e.Kind == wire.KindEpisodeEnd:
		h.endIn.Do(func() { close(h.endDelivered) })
	case e.Kind == wire.KindSheet && chanClosed(h.endDelivered):
		h.hold.Do(func() { close(h.holding); <-h.rc })
	}
}

func (h *sheetAfterEndHold) release() { h.unblock.Do(func() { close(h.rc) }) }

// checkSegmentsOnce: the sink's store holds segments 1..n of episode
// ep, each once (a redelivered segment appended again would show).
func checkSegmentsOnce(t *testing.T, out, ep string, n int) {
	t.Helper()
	e, err := episode.LoadBlobs(blob.Dir{Root: episode.StoreDir(out)}, ep)
	mustNil(t, err)
	segs := map[int]int{}
	for _, s := range e.Segments {
		segs[s.Index]++
	}
	for i := 1; i <= n; i++ {
		if segs[i] != 1 {
			t.Errorf("segment %d is in the store %d times, want once", i, segs[i])
		}
	}
	if len(e.Segments) != n {
		t.Errorf("%d segments in the store, want %d", len(e.Segments), n)
	}
}

func chanClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
