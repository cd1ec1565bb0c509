package annotate

import (
	"context"
	"fmt"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/vlm"
	"golang.org/x/sync/errgroup"
)

// labelJob is the labeling request of one segment.
type labelJob struct {
	req  vlm.Request
	est  int64  // edged's token estimate of its images
	what string // names the segment in an error
}

// labels asks for the label of every job at once, at most
// Options.Concurrency of an episode's camera in flight (the client caps
// the requests of all of them), each through call, so the budget is
// reserved before each request. A nil job has nothing to ask. The labels
// come back in job order, "" where there is none (counted in
// ann.LabelFailures); the requests' bookkeeping is added to ann. The
// first API error cancels the requests left and is returned.
func (a *Annotator) labels(ctx context.Context, jobs []*labelJob, ann *episode.Annotation) ([]string, error) {
	labels := make([]string, len(jobs))
	took := make([]episode.Annotation, len(jobs)) // each request's bookkeeping, added to ann in order
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.o.Concurrency)
	for i, j := range jobs {
		if j == nil {
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err // another request failed: ask nothing more
			}
			raw, err := a.call(gctx, j.req, j.est, &took[i])
			if err != nil {
				return fmt.Errorf("%s: %w", j.what, err)
			}
			labels[i] = parseLabel(raw)
			return nil
		})
	}
	err := g.Wait()
	for i := range took {
		addBookkeeping(ann, &took[i])
		if labels[i] == "" {
			ann.LabelFailures++
		}
	}
	return labels, err
}

// addBookkeeping adds what the requests of b took to a.
func addBookkeeping(a, b *episode.Annotation) {
	a.Requests += b.Requests
	a.Usage.Prompt += b.Usage.Prompt
	a.Usage.Completion += b.Usage.Completion
	a.EstimatedTokens += b.EstimatedTokens
	a.CostUSD += b.CostUSD
	a.LatencyMS += b.LatencyMS
}
