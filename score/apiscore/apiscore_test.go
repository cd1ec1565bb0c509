package apiscore_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/score/apiscore"
	"github.com/edged-robotics/edged/vlm"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

const (
	testKey        = "sk-test-SECRET-apiscore-42"
	testJudgeModel = "test-judge"
	testEmbedModel = "test-embed"
)

// vector is the script's embedding of a text: a function of it.
func vector(text string) []float64 {
	return []float64{float64(len(text)), float64(strings.Count(text, "c")), float64(strings.Count(text, " ")), 1}
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot, na, nb = dot+a[i]*b[i], na+a[i]*a[i], nb+b[i]*b[i]
	}
	return dot / math.Sqrt(na*nb)
}

var (
	truth = score.Segmentation{Unit: score.Seconds, Segments: []score.Segment{{Start: 0, End: 4, Label: "pick cube"}, {Start: 4, End: 10, Label: "place cube on plate"}}}
	pred  = score.Segmentation{Unit: score.Seconds, Segments: []score.Segment{{Start: 0, End: 5, Label: "grasp cube"}, {Start: 5, End: 10, Label: "put cube on plate"}}}
)

// server is a fake API with the script's embeddings and a judge that
// accepts the predicted labels in accept (read from the request's text).
func server(t *testing.T, accept map[string]bool, faults ...vlmtest.Reply) *vlmtest.Server {
	srv := vlmtest.New(t, testKey, testJudgeModel, func(r vlmtest.Request) vlmtest.Reply {
		_, p, _ := strings.Cut(r.Text(), "Predicted label: ")
		b, _ := json.Marshal(map[string]any{"same_event": accept[strings.TrimSpace(p)], "reason": "scripted"})
		return vlmtest.Reply{Content: string(b)}
	}, faults...)
	srv.Embeddings(testEmbedModel, vector)
	return srv
}

func client(t *testing.T, srv *vlmtest.Server, model string, batch int) *vlm.Client {
	cl, err := vlm.New(vlm.Config{BaseURL: srv.URL, APIKey: testKey, Model: model, EmbedBatch: batch,
		MaxRetries: 1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestEncoderTauZeta: tau_zeta from the API's embeddings is the value
// computed by hand from the script's vectors; the labels are asked for
// once per batch, and not again.
func TestEncoderTauZeta(t *testing.T) {
	// Intersecting pairs (truth i, pred j) and their overlaps, of 10 s:
	// (0,0) 4 s, (1,0) 1 s, (1,1) 5 s.
	cs := func(i, j int) float64 {
		return cosine(vector(truth.Segments[i].Label), vector(pred.Segments[j].Label))
	}
	want := (4*cs(0, 0) + 1*cs(1, 0) + 5*cs(1, 1)) / 10
	for _, c := range []struct{ batch, requests int }{{0, 1}, {3, 2}} {
		srv := server(t, nil)
		enc := apiscore.NewEncoder(context.Background(), client(t, srv, testEmbedModel, c.batch))
		for range 2 {
			r, err := score.Score(truth, pred, score.Options{Encoder: enc})
			if err != nil || enc.Err() != nil {
				t.Fatal(err, enc.Err())
			}
			if math.Abs(r.Similarity.TauZeta-want) > 1e-12 {
				t.Fatalf("tau_zeta %v, want %v", r.Similarity.TauZeta, want)
			}
			if !strings.Contains(r.Similarity.Encoder, testEmbedModel) {
				t.Fatalf("encoder named %q, not by its model", r.Similarity.Encoder)
			}
		}
		if got := srv.EmbedRequests(); len(got) != c.requests {
			t.Fatalf("batch %d: %d requests, want %d: %+v", c.batch, len(got), c.requests, got)
		}
	}
}

// TestJudgeEndToEnd: the judge's verdicts, as the script gives them,
// make end-to-end F1; the request carries the rubric, the instruction
// and both labels; each pair is asked once.
func TestJudgeEndToEnd(t *testing.T) {
	same := score.Segmentation{Unit: score.Seconds, Segments: []score.Segment{{Start: 0, End: 4, Label: "grasp cube"}, {Start: 4, End: 10, Label: "put cube on plate"}}}
	cases := []struct {
		name   string
		accept map[string]bool
		f1     float64
	}{
		{"both accepted", map[string]bool{"grasp cube": true, "put cube on plate": true}, 1},
		{"one rejected", map[string]bool{"grasp cube": true}, 0.5},
		{"both rejected", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := server(t, c.accept)
			j := apiscore.NewJudge(context.Background(), client(t, srv, testJudgeModel, 0))
			r, err := score.Score(truth, same, score.Options{Judge: j, Instruction: "stack the cube on the plate"})
			if err != nil || j.Err() != nil {
				t.Fatal(err, j.Err())
			}
			if r.SegmentF1.F1 != 1 || r.EndToEndF1.F1 != c.f1 {
				t.Fatalf("segment F1 %v, end-to-end F1 %v, want 1 and %v", r.SegmentF1.F1, r.EndToEndF1.F1, c.f1)
			}
			if !strings.Contains(r.Judge, testJudgeModel) || !strings.Contains(r.Judge, apiscore.PromptVersion) {
				t.Fatalf("judge named %q", r.Judge)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d judge requests, want 2 (one per pair)", len(reqs))
			}
			q := reqs[0]
			if q.System != apiscore.JudgePrompt || q.SchemaName != "judge_verdict" ||
				!strings.Contains(q.Text(), "Task instruction: stack the cube on the plate") || !strings.Contains(q.Text(), "Reference label: pick cube") {
				t.Fatalf("request %+v", q)
			}
		})
	}
}

// TestFailures: API failures and answers off the schema are kept in Err
// (redacted of the key), never a panic, and no request follows them.
func TestFailures(t *testing.T) {
	five := []vlmtest.Reply{{Status: 500}, {Status: 500}}
	hung := []vlmtest.Reply{{Hang: true}, {Hang: true}}
	cases := []struct {
		name   string
		faults []vlmtest.Reply
		embed  bool
		answer string
		want   error
	}{
		{name: "embeddings 500s", faults: five, embed: true},
		{name: "embeddings hung", faults: hung, embed: true, want: vlm.ErrTimeout},
		{name: "judge 500s", faults: five},
		{name: "judge hung", faults: hung, want: vlm.ErrTimeout},
		{name: "judge garbage", answer: "not json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := server(t, nil, c.faults...)
			if c.answer != "" {
				srv = vlmtest.New(t, testKey, testJudgeModel, func(vlmtest.Request) vlmtest.Reply { return vlmtest.Reply{Content: c.answer} })
			}
			cl := client(t, srv, testJudgeModel, 0)
			o := score.Options{Judge: apiscore.NewJudge(context.Background(), cl)}
			errOf := o.Judge.(*apiscore.Judge).Err
			if c.embed {
				cl = client(t, srv, testEmbedModel, 0)
				enc := apiscore.NewEncoder(context.Background(), cl)
				o, errOf = score.Options{Encoder: enc}, enc.Err
			}
			three := pred
			three.Segments = append(three.Segments, score.Segment{Start: 10, End: 10, Label: "another label"})
			if _, err := score.Score(truth, three, o); err != nil {
				t.Fatal(err)
			}
			err := errOf()
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatalf("the key is in the error: %v", err)
			}
			if n := len(srv.Requests()) + len(srv.EmbedRequests()); n > len(c.faults)+1 || n == 0 {
				t.Fatalf("%d requests after a failure, want one request's attempts", n)
			}
		})
	}
}
