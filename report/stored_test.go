package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// TestStoredAnnotationsAreRows: each annotation edged annotate stored in
// the episode is a timeline row under the FSM's with its model and
// prompt, scored as view.ScoreAnnotation scores it; an invalid one says
// why, with no row of bars.
func TestStoredAnnotationsAreRows(t *testing.T) {
	f := record(t, pickPlace, "")
	b := blob.Dir{Root: f.store}
	good := episode.Annotation{Model: "gpt-4.1-mini", Prompt: "seg-v1", Mode: episode.ModeSegment, Camera: "/cam/front",
		Requests: 4, CostUSD: 0.0123, Segments: []episode.AnnotatedSegment{
			{StartSec: 0, EndSec: 4, Subtask: "reach toward the bottle"}, {StartSec: 4, EndSec: 7.8, Subtask: "grasp the bottle"},
			{StartSec: 7.8, EndSec: 23.6, Subtask: "carry and place the bottle"}}}
	bad := episode.Annotation{Model: "llava", Prompt: "seg-v1", Mode: episode.ModeSegment, Invalid: "the answer is not JSON", Raw: "hmm"}
	goodName := episode.AnnotationName(good.Model, good.Prompt, good.Mode, good.Camera)
	must(t, episode.PutAnnotation(b, f.id, goodName, good))
	must(t, episode.PutAnnotation(b, f.id, episode.AnnotationName(bad.Model, bad.Prompt, bad.Mode, ""), bad))

	html, s := render(t, f.id, Options{Store: b})
	if s.Annotations != 2 {
		t.Errorf("%d annotations in the summary, want the 2 stored", s.Annotations)
	}
	if n := strings.Count(html, `data-row="annotation"`); n != 2 {
		t.Errorf("%d annotation rows on the timeline, want 2", n)
	}
	for _, want := range []string{
		"stored: annotations/" + goodName + ".json · model gpt-4.1-mini · prompt seg-v1 · segment · camera /cam/front · 4 requests",
		"$0.0123", "recorded invalid: the answer is not JSON",
	} {
		if !strings.Contains(html, escaped(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !strings.Contains(html, "<b>annotation</b> llava@seg-v1") {
		t.Error("the invalid annotation has no timeline row")
	}
	e, err := episode.Load(f.store, f.id)
	must(t, err)
	r := view.ScoreAnnotation(e, goodName, good, score.Options{}).Score
	for _, v := range []float64{r.Similarity.TauK, r.Similarity.TauZeta, r.SegmentF1.F1, r.EndToEndF1.F1} {
		if !strings.Contains(html, fmt.Sprintf(`class="v">%.3f<`, v)) {
			t.Errorf("score %.3f not shown", v)
		}
	}
}
