package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/score/fleet"
)

// annotation of segs by model (prompt "seg-v1", camera /cam) costing cost.
func annotation(model string, cost float64, segs []segSpec) episode.Annotation {
	a := episode.Annotation{Model: model, Prompt: "seg-v1", Mode: episode.ModeSegment, Camera: "/cam", Key: model + "-key",
		Requests: 1 + len(segs), Usage: episode.TokenUsage{Prompt: 1000, Completion: 100}, EstimatedTokens: 1032, CostUSD: cost}
	for _, s := range segs {
		a.Segments = append(a.Segments, episode.AnnotatedSegment{StartSec: s.start, EndSec: s.end, Subtask: s.label})
	}
	return a
}

func annotationName(a episode.Annotation) string {
	return episode.AnnotationName(a.Model, a.Prompt, a.Mode, a.Camera)
}

// vlmSegs is vlmWGO: only reach and retreat match (F1 2*2/(5+6) = 4/11).
var vlmSegs = []segSpec{{"reaching for the cup", 0.2, 3.1}, {"grasp and lift", 3.1, 6.5}, {"carry", 6.5, 8},
	{"place the cup", 8, 12}, {"retreat", 12, 14}}

// twoModelStore is a store of two episodes of the demo's segments (robot
// arm-01 on one day, arm-02 the next), each annotated by two models:
// "gpt" exactly, "gem" as vlmSegs on the first and invalid on the second.
func twoModelStore(t *testing.T) (store string, ids []string) {
	t.Helper()
	store = filepath.Join(t.TempDir(), episode.EpisodesDir)
	s, err := epstore.Open(store, epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, robot := range []string{"arm-01", "arm-02"} {
		start := epoch.Add(time.Duration(i) * 24 * time.Hour)
		w, err := s.Begin(epstore.Begin{Robot: robot, Start: start})
		must(t, err)
		at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
		for k, g := range demoSegs {
			must(t, w.Segment(episode.Segment{Index: k, Start: at(g.start), End: at(g.end), StartSec: g.start, EndSec: g.end,
				Label: g.label, Source: "/task/state", Kind: "string", Outcome: episode.Completed}))
		}
		must(t, w.Close(at(14.5), episode.Completed, episode.EndIdle))
		ids = append(ids, filepath.Base(w.Dir()))
	}
	b := blob.Dir{Root: store}
	gem := annotation("gem", 0.005, vlmSegs)
	bad := annotation("gem", 0.005, nil)
	bad.Invalid, bad.Raw = "the answer is not JSON", "I think the robot picks a cup"
	for i, id := range ids {
		must(t, episode.PutAnnotation(b, id, annotationName(gem), []episode.Annotation{gem, bad}[i]))
		exact := annotation("gpt", 0.01, demoSegs)
		must(t, episode.PutAnnotation(b, id, annotationName(exact), exact))
	}
	return store, ids
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestScoreStoredAnnotations: edged score reads annotations from the
// store: one with EPISODE --annotation NAME, all of them with --store,
// grouped by model and by robot, in JSON and text.
func TestScoreStoredAnnotations(t *testing.T) {
	store, ids := twoModelStore(t)
	epDir := filepath.Join(store, ids[0])

	out := edged(t, true, "score", epDir, "--annotation", "gem@seg-v1.cam")
	if !strings.Contains(out, "model gem, prompt seg-v1") || !strings.Contains(out, "segment F1 @IoU0.75  0.364") {
		t.Errorf("score of a stored annotation:\n%s", out)
	}
	out = edged(t, false, "score", filepath.Join(store, ids[1]), "--annotation", "gem@seg-v1.cam")
	if !strings.Contains(out, "recorded invalid: the answer is not JSON") {
		t.Errorf("score of an invalid annotation does not say why:\n%s", out)
	}
	if out = edged(t, false, "score", epDir); !strings.Contains(out, "gem@seg-v1.cam, gpt@seg-v1.cam") {
		t.Errorf("score EPISODE without --annotation does not list them:\n%s", out)
	}

	for _, tc := range []struct {
		by   string
		want map[string][4]float64 // key -> episodes, annotations, invalid, pooled segment F1
	}{
		{"model", map[string][4]float64{"gem@seg-v1": {2, 2, 1, 4.0 / 11}, "gpt@seg-v1": {2, 2, 0, 1}}},
		// arm-01: 6 + 2 matches of 6 + 5 predicted and 6 + 6 reference.
		{"robot", map[string][4]float64{"arm-01": {1, 2, 0, 16.0 / 23}, "arm-02": {1, 2, 1, 1}}},
	} {
		var sum fleet.Summary
		if err := json.Unmarshal([]byte(edged(t, true, "score", "--store", filepath.Dir(store), "--by", tc.by, "--json")), &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Episodes != 2 || sum.Annotated != 2 || len(sum.Groups) != len(tc.want) {
			t.Fatalf("--by %s: %+v", tc.by, sum)
		}
		for _, g := range sum.Groups {
			w := tc.want[g.Key]
			if g.Mode != episode.ModeSegment || float64(g.Episodes) != w[0] || float64(g.Annotations) != w[1] ||
				float64(g.Invalid) != w[2] || !near(g.SegmentF1.Pooled.F1, w[3]) {
				t.Errorf("--by %s: group %+v, want episodes, annotations, invalid, F1 %v", tc.by, g, w)
			}
		}
	}
	text := edged(t, true, "score", "--store", store)
	for _, w := range []string{"fleet view: 2 episodes, 2 annotated; by model", "gem@seg-v1", "gpt@seg-v1", "pooled"} {
		if !strings.Contains(text, w) {
			t.Errorf("the fleet view's text lacks %q:\n%s", w, text)
		}
	}
	if out := edged(t, false, "score", "--store", store, "--by", "camera"); !strings.Contains(out, "give model, robot or day") {
		t.Errorf("--by camera: %s", out)
	}
}

// TestScoreStoredAnnotationsOnS3: the same reads of a store in a real
// S3 server, where it is; inspect and report of an episode there show
// its stored annotations too.
func TestScoreStoredAnnotationsOnS3(t *testing.T) {
	srv := s3test.Start(t)
	ids := uploadEpisodes(t, srv, "fleet", 2) // one segment each: [0, 5] "reach"
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	b := blob.Sub(st, episode.EpisodesDir)
	exact := annotation("gpt", 0.01, []segSpec{{"reach", 0, 5}})
	split := annotation("gem", 0.005, []segSpec{{"reach", 0, 2}, {"grasp", 2, 5}}) // IoU 0.4 and 0.6: no match
	for _, id := range ids {
		must(t, episode.PutAnnotation(b, id, annotationName(exact), exact))
		must(t, episode.PutAnnotation(b, id, annotationName(split), split))
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	out, errOut, err := edgedWithin(t, env, time.Minute, "score", "--store", srv.URL("fleet"), "--json")
	if err != nil {
		t.Fatalf("score --store on s3: %v\n%s", err, errOut)
	}
	var sum fleet.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"gem@seg-v1": 0, "gpt@seg-v1": 1}
	if sum.Episodes != 2 || len(sum.Groups) != 2 {
		t.Fatalf("fleet view on s3: %s", out)
	}
	for _, g := range sum.Groups {
		if g.Episodes != 2 || g.Scored != 2 || !near(g.SegmentF1.Pooled.F1, want[g.Key]) {
			t.Errorf("group %+v: want 2 episodes scored, F1 %v", g, want[g.Key])
		}
	}
	out, errOut, err = edgedWithin(t, env, time.Minute, "score", srv.URL("fleet")+"/episodes/"+ids[1], "--annotation", "gpt@seg-v1.cam")
	if err != nil || !strings.Contains(out, "segment F1 @IoU0.75  1.000") {
		t.Errorf("score of a stored annotation on s3: %v\n%s%s", err, out, errOut)
	}
	for _, args := range [][]string{{"inspect", srv.URL("fleet"), ids[0]}, {"report", srv.URL("fleet") + "/episodes/" + ids[0], "--out", filepath.Join(t.TempDir(), "r.html")}} {
		if out, errOut, err = edgedWithin(t, env, time.Minute, args...); err != nil || !strings.Contains(out, "annotations 2") && !strings.Contains(out, "annotations  2") {
			t.Errorf("edged %s does not show the 2 stored annotations: %v\n%s%s", args[0], err, out, errOut)
		}
	}
}

// TestInspectShowsStoredAnnotations: edged inspect EPISODE lists the
// episode's stored annotations with their scores, and an invalid one
// with why; --json has them under "annotations" with score's report.
func TestInspectShowsStoredAnnotations(t *testing.T) {
	store, ids := twoModelStore(t)
	out := edged(t, true, "inspect", filepath.Join(store, ids[0]))
	for _, w := range []string{"annotations  2", "gem@seg-v1.cam", "0.364", "gpt@seg-v1.cam", "1.000"} {
		if !strings.Contains(out, w) {
			t.Errorf("inspect lacks %q:\n%s", w, out)
		}
	}
	out = edged(t, true, "inspect", filepath.Dir(store), ids[1])
	if !strings.Contains(out, "INVALID") || !strings.Contains(out, "gem@seg-v1.cam: recorded invalid: the answer is not JSON") {
		t.Errorf("inspect does not say why an annotation is invalid:\n%s", out)
	}
	var v struct {
		Annotations []struct {
			Name  string `json:"name"`
			Score *struct {
				SegmentF1 struct {
					F1 float64 `json:"f1"`
				} `json:"segment_f1"`
			} `json:"score"`
			Invalid string `json:"invalid"`
		} `json:"annotations"`
	}
	raw := edged(t, true, "inspect", "--json", filepath.Join(store, ids[1]))
	var any map[string]any
	must(t, json.Unmarshal([]byte(raw), &any))
	if bad := nonSnakeKeys(any, ""); len(bad) > 0 {
		t.Errorf("keys that are not snake_case: %v", bad)
	}
	must(t, json.Unmarshal([]byte(raw), &v))
	if len(v.Annotations) != 2 || v.Annotations[0].Invalid == "" || v.Annotations[1].Score == nil || v.Annotations[1].Score.SegmentF1.F1 != 1 {
		t.Errorf("inspect --json annotations: %s", raw)
	}
}
