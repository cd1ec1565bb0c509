package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The demo's segments (scripts/sim/sim_robot.py --segments) in the three
// input formats of SCORING.md: the {"segments":[...]} object in seconds,
// [start, end, "label"] triples at 2 steps per second (inclusive ends:
// step k is [k/2, (k+1)/2)), and a recorded episode directory.
var demoSegs = []segSpec{{"reach", 0, 3}, {"grasp", 3, 4.5}, {"lift", 4.5, 6.5}, {"carry", 6.5, 10}, {"place", 10, 12}, {"retreat", 12, 14.5}}

const (
	demoWGO = `{"segments": [{"start_sec": 0.0, "end_sec": 3.0, "subtask": "reach"}, {"start_sec": 3.0, "end_sec": 4.5, "subtask": "grasp"},
 {"start_sec": 4.5, "end_sec": 6.5, "subtask": "lift"}, {"start_sec": 6.5, "end_sec": 10.0, "subtask": "carry"},
 {"start_sec": 10.0, "end_sec": 12.0, "subtask": "place"}, {"start_sec": 12.0, "end_sec": 14.5, "subtask": "retreat"}]}`
	demoTriples = `[[0, 5, "reach"], [6, 8, "grasp"], [9, 12, "lift"], [13, 19, "carry"], [20, 23, "place"], [24, 28, "retreat"]]`
	// a VLM that merged grasp and lift and cut carry short: only reach and
	// retreat match (after snapping the edges)
	vlmWGO = `{"segments": [{"start_sec": 0.2, "end_sec": 3.1, "subtask": "reaching for the cup"}, {"start_sec": 3.1, "end_sec": 6.5, "subtask": "grasp and lift"},
 {"start_sec": 6.5, "end_sec": 8.0, "subtask": "carry"}, {"start_sec": 8.0, "end_sec": 12.0, "subtask": "place the cup"}, {"start_sec": 12.0, "end_sec": 14.0, "subtask": "retreat"}]}`
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type scoreJSON struct {
	Unit      string `json:"unit"`
	SegmentF1 struct {
		F1      float64 `json:"f1"`
		Matches int     `json:"matches"`
	} `json:"segment_f1"`
	Buckets []map[string]any `json:"recall_by_duration"`
	Note    string           `json:"recall_by_duration_note"`
	Match   struct {
		Truth []struct {
			Match   int     `json:"match"`
			BestIoU float64 `json:"best_iou"`
		} `json:"truth"`
		Pred []json.RawMessage `json:"pred"`
	} `json:"matching"`
}

func TestScoreInputFormats(t *testing.T) {
	dir := t.TempDir()
	_, ep := recordEpisode(t, demoSegs)
	wgo := writeFile(t, dir, "truth.json", demoWGO)
	triples := writeFile(t, dir, "triples.json", demoTriples)
	vlm := writeFile(t, dir, "vlm.json", vlmWGO)
	for _, tc := range []struct {
		name        string
		truth, pred string
		rate        string
		unit        string
		f1          float64
		preds       int
		err         []string // a refusal's message, in order of appearance
	}{
		{"object vs object", wgo, wgo, "", "seconds", 1, 6, nil},
		{"episode vs object", ep, wgo, "", "seconds", 1, 6, nil},
		{"object vs episode", wgo, ep, "", "seconds", 1, 6, nil},
		{"episode vs episode", ep, ep, "", "seconds", 1, 6, nil},
		{"triples vs triples", triples, triples, "", "steps", 1, 6, nil},
		{"triples vs object at 2 Hz", triples, wgo, "2", "seconds", 1, 6, nil},
		{"episode vs triples at 2 Hz", ep, triples, "2", "seconds", 1, 6, nil},
		{"episode vs a VLM's annotation", ep, vlm, "", "seconds", 4.0 / 11, 5, nil}, // reach and retreat match: P 2/5, R 2/6,
		{"triples vs object, no rate", triples, wgo, "", "", 0, 0,
			[]string{"truth is in integer steps", "prediction in seconds", "give the truth's step rate with --rate HZ"}},
		{"episode vs triples, no rate", ep, triples, "", "", 0, 0,
			[]string{"truth is in seconds", "prediction in integer steps", "give the prediction's step rate with --rate HZ"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"score", "--truth", tc.truth, "--pred", tc.pred}
			if tc.rate != "" {
				args = append(args, "--rate", tc.rate)
			}
			if tc.err != nil {
				out := edged(t, false, args...)
				for _, w := range tc.err {
					if !strings.Contains(out, w) {
						t.Errorf("refusal lacks %q:\n%s", w, out)
					}
				}
				return
			}
			raw := edged(t, true, append(args, "--json")...)
			var v any
			if err := json.Unmarshal([]byte(raw), &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, raw)
			}
			if bad := nonSnakeKeys(v, ""); len(bad) > 0 {
				t.Errorf("keys that are not snake_case: %v", bad)
			}
			var r scoreJSON
			if err := json.Unmarshal([]byte(raw), &r); err != nil {
				t.Fatal(err)
			}
			if r.Unit != tc.unit || abs(r.SegmentF1.F1-tc.f1) > 1e-9 || len(r.Match.Truth) != 6 || len(r.Match.Pred) != tc.preds {
				t.Fatalf("unit %s F1 %v matching %d/%d, want %s %v 6/%d\n%s", r.Unit, r.SegmentF1.F1,
					len(r.Match.Truth), len(r.Match.Pred), tc.unit, tc.f1, tc.preds, raw)
			}
			matched := 0
			for _, m := range r.Match.Truth {
				if m.Match >= 0 {
					matched++
				}
			}
			if matched != r.SegmentF1.Matches {
				t.Errorf("matching has %d matches, segment F1 %d", matched, r.SegmentF1.Matches)
			}
			if tc.unit == "steps" {
				if r.Buckets != nil || !strings.Contains(r.Note, "--rate") {
					t.Errorf("steps truth without a rate: buckets %v note %q", r.Buckets, r.Note)
				}
			} else if len(r.Buckets) != 5 || r.Buckets[4]["name"] != ">=20s" || r.Buckets[4]["max_sec"] != nil || r.Buckets[3]["max_sec"] != 20.0 {
				t.Errorf("buckets %v", r.Buckets)
			}
			text := edged(t, true, args...)
			if !strings.Contains(text, "matching at IoU >= 0.75") || strings.Count(text, "  truth #") != 6 {
				t.Errorf("text lacks the matching:\n%s", text)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
