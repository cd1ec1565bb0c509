package main

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/score/fleet"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

// TestReplaySinkAnnotateScore is the loop end to end, each step the
// binary a user runs: the generated episode replayed (`edged replay
// --broker`) through a real mosquitto to `edged sink`, then annotated
// from the sink's store (`edged annotate`) by a fake API answering
// from the episode's own FSM truth exactly; the annotation is stored,
// the fleet view scores it F1 1.000, inspect lists it, and a second
// annotate asks nothing.
func TestReplaySinkAnnotateScore(t *testing.T) {
	const key, model = "sk-e2e-SECRET-57721566", "test-vlm"
	tmp := t.TempDir()
	sinkOut, sink, ep := replayToSink(t, tmp)
	store := blob.Dir{Root: episode.StoreDir(sinkOut)}
	truth := view.Segmentation(ep)
	if len(truth.Segments) < 2 {
		t.Fatalf("the sink's episode has %d segments", len(truth.Segments))
	}
	api := vlmtest.New(t, key, model, exactAnswers(truth))
	env := append(os.Environ(), "OPENAI_API_KEY="+key)
	annotate := func() string {
		t.Helper()
		out, errOut, err := edgedWithin(t, env, 30*time.Second, "annotate", "--model", model, "--base-url", api.URL, sinkOut)
		if err != nil || strings.Contains(out+errOut, key) {
			t.Fatalf("annotate: %v\n%s%s", err, out, errOut)
		}
		return out
	}
	if out := annotate(); !strings.Contains(out, "1 annotations written (0 invalid)") {
		t.Fatalf("annotate: %s", out)
	}
	if r := api.Refused(); len(r) > 0 {
		t.Fatalf("the API would refuse: %v", r)
	}

	names, err := episode.Annotations(store, ep.Manifest.ID)
	if err != nil || len(names) != 1 {
		t.Fatalf("annotations stored: %v, %v", names, err)
	}
	ann, err := episode.GetAnnotation(store, ep.Manifest.ID, names[0])
	if err != nil || ann.Invalid != "" || len(ann.Segments) != len(truth.Segments) || ann.Requests != 1+len(truth.Segments) {
		t.Fatalf("annotation %s: %+v, %v", names[0], ann, err)
	}
	checkFleetF1(t, sinkOut, model+"@"+ann.Prompt)
	if out := edged(t, true, "inspect", sinkOut, ep.Manifest.ID); !strings.Contains(out, names[0]) || !strings.Contains(out, "1.000") {
		t.Errorf("inspect does not list %s with its score:\n%s", names[0], out)
	}

	n := len(api.Requests())
	if out := annotate(); len(api.Requests()) != n || !strings.Contains(out, "0 episodes to annotate") {
		t.Errorf("the second annotate asked %d more: %s", len(api.Requests())-n, out)
	}
	sink.Stop(10 * time.Second)
	if err := sink.Wait(time.Second); err != nil {
		t.Errorf("the sink did not stop cleanly: %v\n%s", err, sink.Output())
	}
}

// seedLabel is the seed of a relabeling request, as the prompt quotes it.
var seedLabel = regexp.MustCompile(`Predicted label: ("(?:[^"\\]|\\.)*")`)

// exactAnswers answers as a VLM that sees truth exactly: its segments,
// and the seed label kept.
func exactAnswers(truth score.Segmentation) func(vlmtest.Request) vlmtest.Reply {
	type seg struct {
		Start   float64 `json:"start_sec"`
		End     float64 `json:"end_sec"`
		Subtask string  `json:"subtask"`
	}
	var segs struct {
		Segments []seg `json:"segments"`
	}
	for _, s := range truth.Segments {
		segs.Segments = append(segs.Segments, seg{s.Start, s.End, s.Label})
	}
	segAnswer, _ := json.Marshal(segs)
	return func(r vlmtest.Request) vlmtest.Reply {
		if r.SchemaName == "segments" {
			return vlmtest.Reply{Content: string(segAnswer)}
		}
		label := ""
		if m := seedLabel.FindStringSubmatch(r.Text()); m != nil {
			label, _ = strconv.Unquote(m[1])
		}
		b, _ := json.Marshal(map[string]string{"label": label})
		return vlmtest.Reply{Content: string(b)}
	}
}

// checkFleetF1: `edged score --store DIR --json` scores group key's
// segment and end-to-end F1 at 1.
func checkFleetF1(t *testing.T, dir, key string) {
	t.Helper()
	out := edged(t, true, "score", "--store", dir, "--json")
	var sum fleet.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("score --store --json: %v\n%s", err, out)
	}
	for _, g := range sum.Groups {
		if g.Key != key {
			continue
		}
		if g.Scored != 1 || math.Abs(g.SegmentF1.Pooled.F1-1) > 1e-9 || math.Abs(g.EndToEndF1.Pooled.F1-1) > 1e-9 {
			t.Errorf("group %s: scored %d, segment F1 %.3f, end-to-end %.3f; want 1 scored at 1.000",
				key, g.Scored, g.SegmentF1.Pooled.F1, g.EndToEndF1.Pooled.F1)
		}
		return
	}
	t.Errorf("score --store --json has no group %s:\n%s", key, out)
}
