package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/score/fleet"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

const (
	semKey        = "sk-score-SECRET-16180339"
	semEmbedModel = "test-embed"
	semJudgeModel = "test-judge"
)

// semVector is the script's embedding of a label: a function of it.
func semVector(text string) []float64 {
	return []float64{float64(len(text)), float64(strings.Count(text, "e")), float64(strings.Count(text, " ")), 1}
}

// semServer is a fake API embedding with semVector and judging "same
// event" exactly the predicted labels in accept.
func semServer(t *testing.T, accept map[string]bool, faults ...vlmtest.Reply) (srv *vlmtest.Server, keyFile string) {
	srv = vlmtest.New(t, semKey, semJudgeModel, func(r vlmtest.Request) vlmtest.Reply {
		_, p, _ := strings.Cut(r.Text(), "Predicted label: ")
		b, _ := json.Marshal(map[string]any{"same_event": accept[strings.TrimSpace(p)], "reason": "scripted"})
		return vlmtest.Reply{Content: string(b)}
	}, faults...)
	srv.Embeddings(semEmbedModel, semVector)
	keyFile = filepath.Join(t.TempDir(), "key")
	must(t, os.WriteFile(keyFile, []byte(semKey+"\n"), 0o600))
	return srv, keyFile
}

// relabeled is demoWGO's boundaries with other words.
var relabeled = []string{"reach for it", "grab", "raise", "move", "put down", "back off"}

func relabeledFile(t *testing.T) string {
	var segs []map[string]any
	for i, g := range demoSegs {
		segs = append(segs, map[string]any{"start_sec": g.start, "end_sec": g.end, "subtask": relabeled[i]})
	}
	b, _ := json.Marshal(map[string]any{"segments": segs})
	return writeFile(t, t.TempDir(), "pred.json", string(b))
}

// TestScoreSemantic: edged score --embed-model --judge-model scores
// through the API: tau_zeta is the one computed by hand from the
// script's vectors, end-to-end F1 follows the judge's verdicts, the
// output names both models, and the key is in no output.
func TestScoreSemantic(t *testing.T) {
	dir := t.TempDir()
	truth := writeFile(t, dir, "truth.json", demoWGO)
	pred := relabeledFile(t)
	// Same boundaries: only the diagonal pairs have weight (touching
	// pairs weigh 0 in seconds), each its duration.
	var num, den float64
	for i, g := range demoSegs {
		v, w := semVector(g.label), semVector(relabeled[i])
		num += (g.end - g.start) * score.CosineSimilarity(v, w)
		den += g.end - g.start
	}
	accept := map[string]bool{}
	for _, l := range relabeled[:4] {
		accept[l] = true
	}
	srv, keyFile := semServer(t, accept)
	out := edged(t, true, "score", "--truth", truth, "--pred", pred, "--json", "--base-url", srv.URL, "--api-key-file", keyFile,
		"--embed-model", semEmbedModel, "--judge-model", semJudgeModel)
	var r score.Report
	must(t, json.Unmarshal([]byte(out), &r))
	if math.Abs(r.Similarity.TauZeta-num/den) > 1e-9 {
		t.Errorf("tau_zeta %v, want %v by hand", r.Similarity.TauZeta, num/den)
	}
	if r.SegmentF1.F1 != 1 || !near(r.EndToEndF1.F1, 4.0/6) {
		t.Errorf("segment F1 %v, end-to-end F1 %v: want 1 and 4/6 (4 of 6 accepted)", r.SegmentF1.F1, r.EndToEndF1.F1)
	}
	if !strings.Contains(r.Similarity.Encoder, semEmbedModel) || !strings.Contains(r.Judge, semJudgeModel) {
		t.Errorf("encoder %q, judge %q: not named by their models", r.Similarity.Encoder, r.Judge)
	}
	if n := len(srv.EmbedRequests()); n != 1 {
		t.Errorf("%d embeddings requests, want 1 (12 distinct labels, one batch)", n)
	}
	text := edged(t, true, "score", "--truth", truth, "--pred", pred, "--base-url", srv.URL, "--api-key-file", keyFile,
		"--embed-model", semEmbedModel, "--judge-model", semJudgeModel)
	for _, w := range []string{"encoder: api-embedding " + semEmbedModel, "judge: llm-judge " + semJudgeModel} {
		if !strings.Contains(text, w) {
			t.Errorf("text output lacks %q:\n%s", w, text)
		}
	}
	if offline := edged(t, true, "score", "--truth", truth, "--pred", pred); !strings.Contains(offline, "hashed-ngram") || !strings.Contains(offline, "lexical") {
		t.Errorf("the default is not the offline encoder and judge:\n%s", offline)
	}
	if strings.Contains(out+text, semKey) {
		t.Fatal("the key is in the output")
	}
}

// TestScoreSemanticFailures: a failing or hung API is reported with
// exit status 1 and no scores, never a crash, and the key is not in
// the report; --verdicts and --judge-model together are refused.
func TestScoreSemanticFailures(t *testing.T) {
	dir := t.TempDir()
	truth := writeFile(t, dir, "truth.json", demoWGO)
	pred := relabeledFile(t)
	five := []vlmtest.Reply{{Status: 500}, {Status: 500}}
	hung := []vlmtest.Reply{{Hang: true}, {Hang: true}}
	cases := []struct {
		name    string
		faults  []vlmtest.Reply
		flag    string
		want    string
		timeout string
	}{
		{"embeddings 500s", five, "--embed-model=" + semEmbedModel, "500 Internal Server Error", "1m"},
		{"judge 500s", five, "--judge-model=" + semJudgeModel, "500 Internal Server Error", "1m"},
		{"judge hung", hung, "--judge-model=" + semJudgeModel, "no answer within the timeout", "300ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, keyFile := semServer(t, nil, c.faults...)
			out := edged(t, false, "score", "--truth", truth, "--pred", pred, "--base-url", srv.URL, "--api-key-file", keyFile,
				"--retries", "1", "--timeout", c.timeout, c.flag)
			if !strings.Contains(out, "semantic scoring failed") || !strings.Contains(out, c.want) || strings.Contains(out, "tau_k") {
				t.Errorf("output:\n%s", out)
			}
			if strings.Contains(out, semKey) || strings.Contains(out, "panic") {
				t.Errorf("the key or a panic in:\n%s", out)
			}
		})
	}
	verdicts := writeFile(t, dir, "v.json", `{"judge":"me","verdicts":[]}`)
	if out := edged(t, false, "score", "--truth", truth, "--pred", pred, "--verdicts", verdicts, "--judge-model", "x"); !strings.Contains(out, "not both") {
		t.Errorf("--verdicts with --judge-model: %s", out)
	}
}

// TestScoreSemanticStore: the fleet view, one stored annotation and
// edged report score through the API too, and name the models.
func TestScoreSemanticStore(t *testing.T) {
	store, ids := twoModelStore(t)
	srv, keyFile := semServer(t, map[string]bool{"grasp and lift": true})
	api := []string{"--base-url", srv.URL, "--api-key-file", keyFile, "--embed-model", semEmbedModel, "--judge-model", semJudgeModel}
	var sum fleet.Summary
	must(t, json.Unmarshal([]byte(edged(t, true, append([]string{"score", "--store", store, "--json"}, api...)...)), &sum))
	if !strings.Contains(sum.Encoder, semEmbedModel) || !strings.Contains(sum.Judge, semJudgeModel) {
		t.Errorf("fleet view: encoder %q, judge %q", sum.Encoder, sum.Judge)
	}
	out := edged(t, true, append([]string{"score", filepath.Join(store, ids[0]), "--annotation", "gem@seg-v1.cam"}, api...)...)
	if !strings.Contains(out, "encoder: api-embedding "+semEmbedModel) || !strings.Contains(out, "judge: llm-judge "+semJudgeModel) {
		t.Errorf("one stored annotation:\n%s", out)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	edged(t, true, append([]string{"report", filepath.Join(store, ids[0]), "--out", html}, api...)...)
	b, err := os.ReadFile(html)
	must(t, err)
	if !strings.Contains(string(b), "llm-judge "+semJudgeModel) || !strings.Contains(string(b), "api-embedding "+semEmbedModel) {
		t.Error("the report does not name the API encoder and judge")
	}
	if strings.Contains(string(b)+out, semKey) {
		t.Fatal("the key is in the output")
	}
	failing, keyFile2 := semServer(t, nil, vlmtest.Reply{Status: 500}, vlmtest.Reply{Status: 500})
	html2 := filepath.Join(t.TempDir(), "r2.html")
	out = edged(t, false, "report", filepath.Join(store, ids[0]), "--out", html2, "--base-url", failing.URL, "--api-key-file", keyFile2,
		"--retries", "1", "--judge-model", semJudgeModel)
	if _, err := os.Stat(html2); err == nil || !strings.Contains(out, "semantic scoring failed") {
		t.Errorf("a report with failed semantic scores was left, or not reported:\n%s", out)
	}
}
