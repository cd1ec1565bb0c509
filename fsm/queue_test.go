package fsm

import (
	"context"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
)

// blockingObserver holds the run loop inside EpisodeBegan until released,
// so that what a flood leaves queued can be measured.
type blockingObserver struct {
	began   chan struct{}
	release chan struct{}
}

func (o blockingObserver) EpisodeBegan(episode.Manifest) {
	o.began <- struct{}{}
	<-o.release
}
func (blockingObserver) Transition(episode.Manifest, episode.Transition) {}
func (blockingObserver) SegmentClosed(episode.Manifest, episode.Segment) {}
func (blockingObserver) EpisodeEnded(episode.Manifest)                   {}

// TestQueueBytesBoundAFlood: one publisher flooding an FSM topic with
// large messages while the run loop is busy is held to QueueBytes (the
// queue's count alone let 4096 messages of up to 1 MiB, or 16 MiB decoded
// dynamically, pile up), and every drop is counted.
func TestQueueBytesBoundAFlood(t *testing.T) {
	obs := blockingObserver{began: make(chan struct{}), release: make(chan struct{})}
	const budget = 8 << 20
	r := newRig(t, Config{Sources: []Source{{Topic: "/task", IdleStates: []string{"idle"}}}, QueueBytes: budget, Observer: obs})
	r.send("/task", 0, str("pick"))
	select {
	case <-obs.began:
	case <-time.After(10 * time.Second):
		t.Fatal("no episode began")
	}
	const flood, size = 100, 1 << 20
	for i := range flood {
		r.m.PutState(capture.StateEvent{Topic: "/task", Stamp: at(1 + float64(i)/100), Value: str("pick"), Bytes: size})
	}
	if held := r.m.queued.Load(); held > budget {
		t.Errorf("the queue holds %d bytes, budget %d", held, budget)
	}
	want := uint64(flood - budget/size)
	if got := r.m.Stats().Dropped; got != want {
		t.Errorf("dropped %d, want %d", got, want)
	}
	close(obs.release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if held := r.m.queued.Load(); held != 0 {
		t.Errorf("after the queue drained it still charges %d bytes", held)
	}
}
