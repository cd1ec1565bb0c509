package fleet

import (
	"math"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/score"
)

func f1(matches, pred, ref int) score.F1 {
	return score.Pool(score.F1{Matches: matches, Predicted: pred, Reference: ref})
}

// fiveResults, an episode's results one after another (as Tally wants):
// A and D annotate ep1 (models m and g), E labels ep1 on the truth's
// boundaries, B annotates ep2 perfectly, C of ep3 was recorded invalid.
func fiveResults() []Result {
	const half = 1800.0
	return []Result{
		{Episode: "ep1", Robot: "r1", Day: "d1", Model: "m", Prompt: "v1", Mode: episode.ModeSegment, TauK: 0.6, TauZeta: 0.8,
			SegmentF1: f1(2, 4, 5), E2EF1: f1(1, 4, 5), CostUSD: 0.01, Usage: episode.TokenUsage{Prompt: 100, Completion: 10}, Seconds: half},
		{Episode: "ep1", Robot: "r1", Day: "d1", Model: "g", Prompt: "v1", Mode: episode.ModeSegment, TauK: 0.2, TauZeta: 0.4,
			SegmentF1: f1(0, 2, 5), E2EF1: f1(0, 2, 5), Seconds: half},
		{Episode: "ep1", Robot: "r1", Day: "d1", Model: "m", Prompt: "v1", Mode: episode.ModeOnTruth, TauK: 1, TauZeta: 0.9,
			SegmentF1: f1(5, 5, 5), E2EF1: f1(4, 5, 5), Seconds: half},
		{Episode: "ep2", Robot: "r2", Day: "d1", Model: "m", Prompt: "v1", Mode: episode.ModeSegment, TauK: 1, TauZeta: 1,
			SegmentF1: f1(3, 3, 3), E2EF1: f1(3, 3, 3), CostUSD: 0.03, Usage: episode.TokenUsage{Prompt: 300, Completion: 30}, Seconds: half},
		{Episode: "ep3", Robot: "r1", Day: "d2", Model: "m", Prompt: "v1", Mode: episode.ModeSegment, Invalid: true,
			CostUSD: 0.02, Usage: episode.TokenUsage{Prompt: 50, Completion: 5}, Seconds: 2 * half},
	}
}

// want is what a test checks of a Group.
type want struct {
	key, mode                      string
	episodes, annotations, invalid int
	truth, pred                    int
	tauK, tauZeta                  float64
	segPooled, segMean             float64
	e2ePooled, e2eMean             float64
	cost, perCamHour               float64
	promptTokens, completionTokens int64
}

// TestTally: the aggregation against figures computed by hand. Pooled
// F1 is 2*matches/(predicted+reference) of the sums; the mean is over
// scored annotations; invalid ones are counted and paid for, not scored.
func TestTally(t *testing.T) {
	cases := []struct {
		by     string
		groups []want
		totals []want
	}{
		{ByModel,
			[]want{
				{"m@v1", "on_truth", 1, 1, 0, 5, 5, 1, 0.9, 1, 1, 0.8, 0.8, 0, 0, 0, 0},
				{"g@v1", "segment", 1, 1, 0, 5, 2, 0.2, 0.4, 0, 0, 0, 0, 0, 0, 0, 0},
				// A and B scored, C invalid: matches 5 of 7 predicted and 8
				// reference: 10/15; mean of 4/9 and 1.
				{"m@v1", "segment", 3, 3, 1, 8, 7, 0.8, 0.9, 10.0 / 15, (4.0/9 + 1) / 2, 8.0 / 15, (2.0/9 + 1) / 2, 0.06, 0.03, 450, 45},
			},
			[]want{
				{"all", "on_truth", 1, 1, 0, 5, 5, 1, 0.9, 1, 1, 0.8, 0.8, 0, 0, 0, 0},
				// ep1 counted once though two models annotated it.
				{"all", "segment", 3, 4, 1, 13, 9, 0.6, 2.2 / 3, 10.0 / 22, (4.0/9 + 1) / 3, 8.0 / 22, (2.0/9 + 1) / 3, 0.06, 0.06 / 2.5, 450, 45},
			}},
		{ByRobot,
			[]want{
				{"r1", "on_truth", 1, 1, 0, 5, 5, 1, 0.9, 1, 1, 0.8, 0.8, 0, 0, 0, 0},
				// A, D scored and C invalid: matches 2 of 6 and 10: 4/16.
				{"r1", "segment", 2, 3, 1, 10, 6, 0.4, 0.6, 0.25, 2.0 / 9, 0.125, 1.0 / 9, 0.03, 0.015, 150, 15},
				{"r2", "segment", 1, 1, 0, 3, 3, 1, 1, 1, 1, 1, 1, 0.03, 0.06, 300, 30},
			}, nil},
		{ByDay,
			[]want{
				{"d1", "on_truth", 1, 1, 0, 5, 5, 1, 0.9, 1, 1, 0.8, 0.8, 0, 0, 0, 0},
				{"d1", "segment", 2, 3, 0, 13, 9, 0.6, 2.2 / 3, 10.0 / 22, (4.0/9 + 1) / 3, 8.0 / 22, (2.0/9 + 1) / 3, 0.04, 0.04 / 1.5, 400, 40},
				{"d2", "segment", 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0.02, 0.02, 50, 5},
			}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.by, func(t *testing.T) {
			tl := Tally{By: tc.by}
			for _, r := range fiveResults() {
				tl.Add(&r)
			}
			groups, totals := tl.Groups()
			check(t, "group", groups, sortWant(tc.groups))
			if tc.totals != nil {
				check(t, "total", totals, sortWant(tc.totals))
			}
		})
	}
}

// sortWant orders as Groups does: by mode, then key.
func sortWant(w []want) []want {
	out := append([]want(nil), w...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].mode < out[i].mode || out[j].mode == out[i].mode && out[j].key < out[i].key {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func check(t *testing.T, what string, got []Group, w []want) {
	t.Helper()
	if len(got) != len(w) {
		t.Fatalf("%d %ss, want %d: %+v", len(got), what, len(w), got)
	}
	for i, g := range got {
		x := w[i]
		ints := [][2]int{{g.Episodes, x.episodes}, {g.Annotations, x.annotations}, {g.Invalid, x.invalid},
			{g.TruthSegments, x.truth}, {g.PredSegments, x.pred}, {int(g.PromptTokens), int(x.promptTokens)}, {int(g.CompletionTokens), int(x.completionTokens)}}
		floats := [][2]float64{{g.TauK, x.tauK}, {g.TauZeta, x.tauZeta}, {g.SegmentF1.Pooled.F1, x.segPooled}, {g.SegmentF1.Mean, x.segMean},
			{g.EndToEndF1.Pooled.F1, x.e2ePooled}, {g.EndToEndF1.Mean, x.e2eMean}, {g.CostUSD, x.cost}, {g.CostPerCameraHour, x.perCamHour}}
		bad := g.Key != x.key || g.Mode != x.mode
		for _, p := range ints {
			bad = bad || p[0] != p[1]
		}
		for _, p := range floats {
			bad = bad || math.Abs(p[0]-p[1]) > 1e-9
		}
		if bad {
			t.Errorf("%s %d:\n got %+v\nwant %+v", what, i, g, x)
		}
	}
}
