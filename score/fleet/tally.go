package fleet

import (
	"fmt"
	"sort"

	"github.com/edged-robotics/edged/score"
)

// The groupings of the fleet view (edged score --store --by).
const (
	ByModel = "model" // the annotator: model and prompt version
	ByRobot = "robot"
	ByDay   = "day" // the episode's start, UTC
)

// All is the Key of the total of one mode.
const All = "all"

// CheckBy refuses a grouping that is none of ByModel, ByRobot, ByDay.
func CheckBy(by string) error {
	switch by {
	case ByModel, ByRobot, ByDay:
		return nil
	}
	return fmt.Errorf("--by %q: give model, robot or day", by)
}

// F1s are the two figures of an F1 over a group: Pooled adds up the
// matches, predicted and reference segments of every scored annotation
// and computes F1 once (score.Pool: as WGO-Bench reports over all its
// segments); Mean is the mean of each annotation's own F1 (an episode
// and camera each).
type F1s struct {
	Pooled score.F1 `json:"pooled"`
	Mean   float64  `json:"mean"`
}

// Group is the fleet view of one group (a model and prompt version, a
// robot or a day) in one mode (episode.ModeSegment or ModeOnTruth,
// never mixed: labels on the truth's boundaries score what
// segmentation cannot).
type Group struct {
	Key  string `json:"key"`
	Mode string `json:"mode"`
	// Episodes with at least one annotation in the group; Annotations
	// all of them, of which Scored have scores, Invalid are at fault
	// (recorded invalid or refused by score: not scored, per
	// SCORING.md) and Unscored are not (the truth cannot be scored).
	Episodes    int `json:"episodes"`
	Annotations int `json:"annotations"`
	Scored      int `json:"scored"`
	Invalid     int `json:"invalid"`
	Unscored    int `json:"unscored"`
	// TruthSegments and PredSegments of the scored annotations.
	TruthSegments int `json:"truth_segments"`
	PredSegments  int `json:"pred_segments"`
	// TauK and TauZeta: the mean over the scored annotations.
	TauK       float64 `json:"tau_k"`
	TauZeta    float64 `json:"tau_zeta"`
	SegmentF1  F1s     `json:"segment_f1"`
	EndToEndF1 F1s     `json:"end_to_end_f1"`
	// What every annotation of the group cost (invalid ones too: they
	// were paid for): requests, the API's token counts, edged's own
	// estimate, dollars, and per camera-hour of episode time.
	Requests          int     `json:"requests"`
	PromptTokens      int64   `json:"prompt_tokens"`
	CompletionTokens  int64   `json:"completion_tokens"`
	EstimatedTokens   int64   `json:"estimated_tokens"`
	CostUSD           float64 `json:"cost_usd"`
	CameraHours       float64 `json:"camera_hours"`
	CostPerCameraHour float64 `json:"cost_per_camera_hour_usd"`

	lastEpisode         string
	sumTauK, sumTauZeta float64
	sumSegF1, sumE2EF1  float64
	segSum, e2eSum      score.F1 // the counts score.Pool adds up
}

// Tally adds up Results into Groups. Add an episode's Results one
// after another (Episodes counts changes of episode within a group).
// The zero Tally groups by model.
type Tally struct {
	By     string
	groups map[[2]string]*Group
}

// Key is r's group under by.
func Key(by string, r *Result) string {
	switch by {
	case ByRobot:
		return r.Robot
	case ByDay:
		return r.Day
	}
	return r.Model + "@" + r.Prompt
}

// Add counts r in its group and in its mode's total.
func (t *Tally) Add(r *Result) {
	if t.groups == nil {
		t.groups = map[[2]string]*Group{}
	}
	for _, k := range [][2]string{{Key(t.By, r), r.Mode}, {All, r.Mode}} {
		g := t.groups[k]
		if g == nil {
			g = &Group{Key: k[0], Mode: k[1]}
			t.groups[k] = g
		}
		g.add(r)
	}
}

func (g *Group) add(r *Result) {
	if r.Episode != g.lastEpisode || g.Episodes == 0 {
		g.Episodes++
		g.lastEpisode = r.Episode
	}
	g.Annotations++
	g.Requests += r.Requests
	g.PromptTokens += r.Usage.Prompt
	g.CompletionTokens += r.Usage.Completion
	g.EstimatedTokens += r.EstimatedTokens
	g.CostUSD += r.CostUSD
	g.CameraHours += r.Seconds / 3600
	switch {
	case r.Invalid:
		g.Invalid++
		return
	case r.Unscored:
		g.Unscored++
		return
	}
	g.Scored++
	g.TruthSegments += r.SegmentF1.Reference
	g.PredSegments += r.SegmentF1.Predicted
	g.sumTauK += r.TauK
	g.sumTauZeta += r.TauZeta
	g.sumSegF1 += r.SegmentF1.F1
	g.sumE2EF1 += r.E2EF1.F1
	g.segSum = score.Pool(g.segSum, r.SegmentF1)
	g.e2eSum = score.Pool(g.e2eSum, r.E2EF1)
}

// finish computes the means and the pooled F1s.
func (g *Group) finish() Group {
	out := *g
	out.segSum, out.e2eSum, out.lastEpisode = score.F1{}, score.F1{}, ""
	out.SegmentF1.Pooled, out.EndToEndF1.Pooled = g.segSum, g.e2eSum
	if g.Scored > 0 {
		n := float64(g.Scored)
		out.TauK, out.TauZeta = g.sumTauK/n, g.sumTauZeta/n
		out.SegmentF1.Mean, out.EndToEndF1.Mean = g.sumSegF1/n, g.sumE2EF1/n
	}
	if g.CameraHours > 0 {
		out.CostPerCameraHour = g.CostUSD / g.CameraHours
	}
	return out
}

// Groups are the groups added, then each mode's total (Key All),
// sorted by mode, then key.
func (t *Tally) Groups() (groups, totals []Group) {
	for _, g := range t.groups {
		if g.Key == All {
			totals = append(totals, g.finish())
		} else {
			groups = append(groups, g.finish())
		}
	}
	less := func(s []Group) func(i, j int) bool {
		return func(i, j int) bool {
			if s[i].Mode != s[j].Mode {
				return s[i].Mode < s[j].Mode
			}
			return s[i].Key < s[j].Key
		}
	}
	sort.Slice(groups, less(groups))
	sort.Slice(totals, less(totals))
	return groups, totals
}
