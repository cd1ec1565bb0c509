package annotate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/vlm"
)

// Completer is what annotate needs of an API client (*vlm.Client).
type Completer interface {
	Complete(ctx context.Context, r vlm.Request) (vlm.Response, error)
	Model() string
}

// Options configure an Annotator.
type Options struct {
	Client Completer
	// Prompts; zero: Builtin().
	Prompts Prompts
	// OnTruth labels the FSM's own segments from the robot's labeling
	// sheets (episode.ModeOnTruth) instead of segmenting.
	OnTruth bool
	// Prices of the model, for the cost; zero: PriceOf(model).
	Prices Prices
	// MaxCost stops before a request would take the spending over it
	// (USD; 0: no budget).
	MaxCost float64
	// Concurrency: episodes annotated at once by Store, and labeling
	// requests of one camera sent at once (default 4; the client caps
	// the requests in flight).
	Concurrency int
	// Now stamps annotations (default time.Now).
	Now func() time.Time
}

// Annotator annotates episodes of a store. It is safe for concurrent
// use; its budget is shared by every call.
type Annotator struct {
	o      Options
	mu     sync.Mutex
	spent  float64 // USD, settled requests
	held   float64 // USD, reserved by requests in flight
	budget bool
	// done are the episodes found annotated by this Annotator, which
	// later Store passes (--follow) do not list again.
	done map[string]bool
}

// ErrBudget: the next request would take the spending over MaxCost; it
// was not sent.
var ErrBudget = errors.New("annotate: the budget (--max-cost) would be exceeded")

// New makes an Annotator.
func New(o Options) (*Annotator, error) {
	if o.Client == nil {
		return nil, errors.New("annotate: no API client")
	}
	if o.Prompts.Version == "" {
		o.Prompts = Builtin()
	}
	if o.Prices == (Prices{}) {
		o.Prices = PriceOf(o.Client.Model())
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Annotator{o: o, budget: o.MaxCost > 0, done: map[string]bool{}}, nil
}

// Spent is what the requests made so far cost (USD).
func (a *Annotator) Spent() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spent
}

func (a *Annotator) mode() string {
	if a.o.OnTruth {
		return episode.ModeOnTruth
	}
	return episode.ModeSegment
}

// name of the annotation of camera cam.
func (a *Annotator) name(cam string) string {
	return episode.AnnotationName(a.o.Client.Model(), a.o.Prompts.Version, a.mode(), cam)
}

// Result is one camera's annotation of an episode.
type Result struct {
	Episode    string
	Name       string
	Annotation episode.Annotation
	// Skipped: an annotation with the same key was there; nothing was
	// asked.
	Skipped bool
}

// estimatedOutput is the completion tokens a request is assumed to take
// when reserving the budget.
const estimatedOutput = 512

// call sends r, its images estimated at est tokens, and adds what it
// took to ann; the budget is reserved first and settled after.
func (a *Annotator) call(ctx context.Context, r vlm.Request, est int64, ann *episode.Annotation) (string, error) {
	for _, p := range r.Parts {
		est += int64(len(p.Text)+3) / 4
	}
	est += int64(len(r.System)+3) / 4
	reserve := a.o.Prices.Cost(est, estimatedOutput)
	if err := a.reserve(reserve); err != nil {
		return "", err
	}
	resp, err := a.o.Client.Complete(ctx, r)
	in, out := resp.Usage.Prompt, resp.Usage.Completion
	if in == 0 && out == 0 && err == nil {
		in = est // the API reported no usage: edged's estimate stands in
	}
	cost := a.o.Prices.Cost(in, out)
	a.settle(reserve, cost)
	ann.Requests += resp.Attempts
	ann.Usage.Prompt += resp.Usage.Prompt
	ann.Usage.Completion += resp.Usage.Completion
	ann.EstimatedTokens += est
	ann.CostUSD += cost
	ann.LatencyMS += resp.Latency.Milliseconds()
	return resp.Content, err
}

func (a *Annotator) reserve(c float64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.budget && a.spent+a.held+c > a.o.MaxCost {
		return fmt.Errorf("%w: $%.4f spent, $%.4f in flight, the next request may cost $%.4f, the budget is $%.4f",
			ErrBudget, a.spent, a.held, c, a.o.MaxCost)
	}
	a.held += c
	return nil
}

func (a *Annotator) settle(reserved, cost float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.held -= reserved
	a.spent += cost
}

// Episode annotates episode id of store b: one annotation per camera,
// each skipped when one with the same key is stored already. An API
// failure (after the client's retries) is returned and nothing is
// stored for that camera, so a later run tries again; an unusable
// answer is stored as invalid, with the raw answer.
func (a *Annotator) Episode(ctx context.Context, b blob.Blobs, id string) ([]Result, error) {
	e, err := episode.LoadBlobs(b, id)
	if err != nil {
		return nil, err
	}
	if a.o.OnTruth {
		return a.onTruth(ctx, b, e)
	}
	return a.segment(ctx, b, e)
}

// existing returns the stored annotation name of episode id when its key
// is k.
func existing(b blob.Blobs, id, name, k string) (episode.Annotation, bool) {
	old, err := episode.GetAnnotation(b, id, name)
	return old, err == nil && old.Key == k
}

// store writes ann as name of episode id.
func (a *Annotator) store(b blob.Blobs, id, name string, ann episode.Annotation) (Result, error) {
	ann.Created = a.o.Now().UTC()
	if err := episode.PutAnnotation(b, id, name, ann); err != nil {
		return Result{}, err
	}
	return Result{Episode: id, Name: name, Annotation: ann}, nil
}

// duration of an episode in seconds: its manifest's, else what its
// segments cover.
func duration(e *episode.Episode) float64 {
	if d := e.Manifest.Duration().Seconds(); d > 0 {
		return d
	}
	var end float64
	for _, s := range e.Segments {
		end = max(end, s.EndSec)
	}
	return end
}
