package annotate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"golang.org/x/sync/errgroup"
)

// DefaultFollowInterval is how often Follow looks for newly complete
// episodes (edged annotate --follow --interval).
const DefaultFollowInterval = 30 * time.Second

// Summary is what Store did.
type Summary struct {
	Episodes  int // complete episodes found without this annotation
	Annotated int // annotations written (invalid ones included)
	Invalid   int // written as invalid (unusable answer, raw kept)
	Skipped   int // same key already stored
	Failed    int // episodes not annotated (API failure, damaged episode)
	CostUSD   float64
	// Errors of the failed episodes (the first maxErrors).
	Errors []error
	// Stopped: the budget stopped the run (ErrBudget) before these many
	// episodes were annotated.
	Stopped int
}

const maxErrors = 20

// Progress is called after each episode of a Store run.
type Progress func(done, total int, id string)

// complete: an episode whose files are all there (a sink's Complete; on
// a robot's own store, closed).
func complete(m episode.Manifest) bool {
	return m.Complete || (m.Closed && m.Held == nil)
}

// Pending lists the complete episodes of store b that lack an
// annotation by this model and prompt version for one of their
// cameras (found from the listing alone: no sheet is read). An episode
// once found annotated, or annotated, by this Annotator is not looked
// at again (a --follow pass lists only the manifests of those).
func (a *Annotator) Pending(b blob.Blobs) ([]string, error) {
	ms, err := episode.ListBlobs(b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range ms {
		if !complete(m) || a.isDone(m.ID) {
			continue
		}
		done, err := a.annotated(b, m.ID)
		if err != nil || !done {
			out = append(out, m.ID)
			continue
		}
		a.markDone(m.ID)
	}
	return out, nil
}

func (a *Annotator) isDone(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done[id]
}

func (a *Annotator) markDone(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done[id] = true
}

// annotated: every camera of episode id has an annotation by this
// model, prompt version and mode.
func (a *Annotator) annotated(b blob.Blobs, id string) (bool, error) {
	cams, err := listCameras(b, id, episode.SheetsDir, episode.SheetPrefix)
	if a.o.OnTruth {
		_, cams, err = truthSheets(b, id)
	}
	if err != nil || len(cams) == 0 {
		return false, err
	}
	have, err := episode.Annotations(b, id)
	if err != nil {
		return false, err
	}
	for _, c := range cams {
		if !slices.Contains(have, a.name(c.Dir)) {
			return false, nil
		}
	}
	return true, nil
}

// Store annotates every complete episode of b without an annotation by
// this model and prompt version, Options.Concurrency at a time. It stops
// starting episodes when ctx is done or the budget would be exceeded
// (then Summary.Stopped counts those left and the error wraps
// ErrBudget); an episode that fails is counted and the run goes on.
func (a *Annotator) Store(ctx context.Context, b blob.Blobs, progress Progress) (Summary, error) {
	ids, err := a.Pending(b)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Episodes: len(ids)}
	var mu sync.Mutex
	var budgetErr error
	done, budgetHit := 0, 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.o.Concurrency)
	for _, id := range ids {
		mu.Lock()
		stop := budgetErr != nil
		mu.Unlock()
		if stop || gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rs, err := a.Episode(gctx, b, id)
			if err == nil {
				a.markDone(id)
			}
			mu.Lock()
			defer mu.Unlock()
			sum.add(rs, err)
			if errors.Is(err, ErrBudget) {
				budgetHit++
				budgetErr = cmp.Or(budgetErr, err)
			}
			done++
			if progress != nil {
				progress(done, len(ids), id)
			}
			return nil
		})
	}
	_ = g.Wait()
	sum.CostUSD = a.Spent()
	if budgetErr != nil {
		sum.Stopped = len(ids) - done + budgetHit
		return sum, fmt.Errorf("stopped before exceeding --max-cost ($%.4f spent); %d episodes left: %w", sum.CostUSD, sum.Stopped, budgetErr)
	}
	return sum, ctx.Err()
}

func (s *Summary) add(rs []Result, err error) {
	for _, r := range rs {
		switch {
		case r.Skipped:
			s.Skipped++
		case r.Annotation.Invalid != "":
			s.Annotated++
			s.Invalid++
		default:
			s.Annotated++
		}
	}
	if err != nil && !errors.Is(err, ErrBudget) {
		s.Failed++
		if len(s.Errors) < maxErrors {
			s.Errors = append(s.Errors, err)
		}
	}
}

// Follow runs Store every interval until ctx is done (a signal), each
// episode annotated once it is complete; report gets each pass that
// found work or failed (a failed pass, a store that cannot be listed,
// is tried again at the next interval). It returns nil when ctx is
// done, or the budget's error when it stops a pass.
func (a *Annotator) Follow(ctx context.Context, b blob.Blobs, interval time.Duration, progress Progress, report func(Summary, error)) error {
	if interval <= 0 {
		interval = DefaultFollowInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		sum, err := a.Store(ctx, b, progress)
		if ctx.Err() != nil {
			return nil
		}
		if report != nil && (sum.Episodes > 0 || err != nil) {
			report(sum, err)
		}
		if errors.Is(err, ErrBudget) {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
