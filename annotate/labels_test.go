package annotate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

var segmentNo = regexp.MustCompile(`Segment (\d+) of (\d+)`)

// overlapping answers the segmentation with the truth, and each
// labeling request with "label K" (K its segment) once `together` of
// them are in flight at once (or a deadline passed), segment K only
// after segment K+1 was answered within each batch of `together`:
// labels come back last to first. It records the most requests in
// flight.
type overlapping struct {
	truth    func(vlmtest.Request) vlmtest.Reply
	together int

	mu       sync.Mutex
	inFlight int
	max      int
	all      chan struct{}         // closed when together are in flight
	answered map[int]chan struct{} // closed when segment K is answered
}

func newOverlapping(truth []truthSeg, together int) *overlapping {
	o := &overlapping{truth: truthAnswers(truth, 0, false), together: together, all: make(chan struct{}), answered: map[int]chan struct{}{}}
	for k := 1; k <= len(truth)+1; k++ {
		o.answered[k] = make(chan struct{})
	}
	close(o.answered[len(truth)+1]) // no segment after the last
	return o
}

// wait waits for c, at most 10 s: a client that does not overlap its
// requests fails the test on max, it does not hang it.
func wait(c chan struct{}) {
	select {
	case <-c:
	case <-time.After(10 * time.Second):
	}
}

func (o *overlapping) answer(r vlmtest.Request) vlmtest.Reply {
	m := segmentNo.FindStringSubmatch(r.Text())
	if r.SchemaName != "label" || m == nil {
		return o.truth(r)
	}
	k, _ := strconv.Atoi(m[1])
	o.mu.Lock()
	o.inFlight++
	o.max = max(o.max, o.inFlight)
	if o.inFlight == o.together {
		closeOnce(o.all)
	}
	o.mu.Unlock()
	wait(o.all)
	if k%o.together != 0 { // within a batch of together: the next one first
		wait(o.answered[k+1])
	}
	b, _ := json.Marshal(map[string]string{"label": fmt.Sprintf("label %d", k)})
	o.mu.Lock()
	o.inFlight--
	closeOnce(o.answered[k]) // once: a request retried is answered again
	o.mu.Unlock()
	return vlmtest.Reply{Content: string(b)}
}

// closeOnce closes c unless it is closed (under the caller's lock).
func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

func (o *overlapping) maxInFlight() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max
}

// TestLabelsOverlap: the labeling requests of one episode are in flight
// together, up to the concurrency cap, in both modes; their labels are
// kept in segment order though answered last to first.
func TestLabelsOverlap(t *testing.T) {
	for _, tc := range []struct {
		name        string
		onTruth     bool
		concurrency int
		requests    int
	}{
		{name: "relabeling", concurrency: 4, requests: 5},
		{name: "relabeling capped", concurrency: 2, requests: 5},
		{name: "on truth", onTruth: true, concurrency: 4, requests: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := s.record(t, pickPlace, t0)
			o := newOverlapping(pickPlace, tc.concurrency)
			srv := vlmtest.New(t, testKey, testModel, o.answer)
			a := newAnnotator(t, srv, Options{OnTruth: tc.onTruth, Concurrency: tc.concurrency})
			rs, err := a.Episode(context.Background(), s.b, id)
			must(t, err)
			if got := o.maxInFlight(); got != tc.concurrency {
				t.Errorf("%d labeling requests in flight at most, want %d (the concurrency)", got, tc.concurrency)
			}
			ann := rs[0].Annotation
			if ann.Requests != tc.requests || len(ann.Segments) != len(pickPlace) || ann.LabelFailures != 0 {
				t.Fatalf("annotation %+v", ann)
			}
			for i, seg := range ann.Segments {
				if want := fmt.Sprintf("label %d", i+1); seg.Subtask != want || seg.StartSec != pickPlace[i].start {
					t.Errorf("segment %d: %+v, want %q from %g s", i, seg, want, pickPlace[i].start)
				}
			}
		})
	}
}

// TestLabelsBudget: requests in flight together still reserve the
// budget each before it is sent: the run stops without going over it.
func TestLabelsBudget(t *testing.T) {
	s := newStore(t)
	id := s.record(t, pickPlace, t0)
	srv := vlmtest.New(t, testKey, testModel, truthAnswers(pickPlace, 0, false))
	// At $10 per million tokens the segmentation reserves about $0.02
	// and each relabeling $0.013: about two relabelings fit in $0.05.
	const budget = 0.05
	a := newAnnotator(t, srv, Options{Prices: Prices{Input: 10, Output: 10}, MaxCost: budget, Concurrency: 4})
	_, err := a.Episode(context.Background(), s.b, id)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err %v, want ErrBudget", err)
	}
	if a.Spent() > budget || len(srv.Requests()) >= 5 {
		t.Fatalf("spent $%.4f of $%.2f in %d requests", a.Spent(), budget, len(srv.Requests()))
	}
	if names, _ := episode.Annotations(s.b, id); len(names) != 0 {
		t.Fatalf("an annotation stopped by the budget was stored: %v", names)
	}
}
