package fleet

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/store"
)

// countingBlobs counts the reads of annotation files.
type countingBlobs struct {
	blob.Blobs
	annotationGets atomic.Int64
}

func (c *countingBlobs) Get(name string, max int64) ([]byte, string, error) {
	if strings.Contains(name, "/"+episode.AnnotationsDir+"/") {
		c.annotationGets.Add(1)
	}
	return c.Blobs.Get(name, max)
}

// storeOf writes n one-segment episodes ([0, 10] "pick") into a new
// store and returns it with their ids.
func storeOf(t *testing.T, n int) (blob.Dir, []string) {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for i := range n {
		start := time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)
		w, err := s.Begin(store.Begin{Robot: "arm-01", Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Segment(episode.Segment{Start: start, End: start.Add(10 * time.Second), EndSec: 10, Label: "pick",
			Source: "/s", Kind: "string", Outcome: episode.Completed}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(start.Add(10*time.Second), episode.Completed, episode.EndIdle); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.Dir()[len(dir)+1:])
	}
	return blob.Dir{Root: dir}, ids
}

func put(t *testing.T, b blob.Blobs, id, model string, segs ...episode.AnnotatedSegment) {
	t.Helper()
	a := episode.Annotation{Model: model, Prompt: "v1", Mode: episode.ModeSegment, Segments: segs}
	if err := episode.PutAnnotation(b, id, episode.AnnotationName(model, "v1", "", ""), a); err != nil {
		t.Fatal(err)
	}
}

// TestIndexRefreshIsBounded: a refresh reads at most MaxPerRefresh
// annotations (the rest are pending for the next), reads nothing that
// has not changed, rereads a changed one and forgets a deleted one.
func TestIndexRefreshIsBounded(t *testing.T) {
	dir, ids := storeOf(t, 3)
	pick := episode.AnnotatedSegment{StartSec: 0, EndSec: 10, Subtask: "pick"}
	for _, id := range ids {
		put(t, dir, id, "m", pick)
	}
	b := &countingBlobs{Blobs: dir}
	ix := Index{MaxPerRefresh: 2}
	for _, step := range []struct {
		what                    string
		change                  func()
		full                    bool
		reads, pending, entries int
		scored                  int
	}{
		{"first refresh: two of three", nil, false, 2, 1, 2, 2},
		{"second: the third", nil, false, 1, 0, 3, 3},
		{"nothing changed: nothing read", nil, false, 0, 0, 3, 3},
		{"one replaced (another size): it alone", func() { put(t, dir, ids[1], "m") }, false, 1, 0, 3, 2},
		{"one deleted: forgotten", func() {
			if err := dir.Delete(ids[2] + "/" + episode.AnnotationsDir + "/m@v1.json"); err != nil {
				t.Fatal(err)
			}
		}, false, 0, 0, 2, 1},
		{"full: every one reread, still bounded", nil, true, 2, 0, 2, 1},
	} {
		if step.change != nil {
			step.change()
		}
		before := b.annotationGets.Load()
		if err := ix.Refresh(context.Background(), b, step.full); err != nil {
			t.Fatal(err)
		}
		s := ix.Summary(ByModel)
		scored := 0
		for _, g := range s.Totals {
			scored += g.Scored
		}
		if reads := b.annotationGets.Load() - before; reads != int64(step.reads) || s.Pending != step.pending ||
			len(ix.entries) != step.entries || scored != step.scored || s.Episodes != 3 {
			t.Errorf("%s: %d reads, %d pending, %d entries, %d scored, %d episodes; want %d, %d, %d, %d, 3",
				step.what, reads, s.Pending, len(ix.entries), scored, s.Episodes, step.reads, step.pending, step.entries, step.scored)
		}
	}
}

// TestRefreshStopsWithItsContext: a refresh ends when its context does
// (the sink stopping), without reading on.
func TestRefreshStopsWithItsContext(t *testing.T) {
	dir, ids := storeOf(t, 2)
	for _, id := range ids {
		put(t, dir, id, "m", episode.AnnotatedSegment{StartSec: 0, EndSec: 10, Subtask: "pick"})
	}
	b := &countingBlobs{Blobs: dir}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ix Index
	if err := ix.Refresh(ctx, b, false); err != context.Canceled || b.annotationGets.Load() != 0 {
		t.Errorf("a refresh with its context ended: %v, %d reads", err, b.annotationGets.Load())
	}
}
