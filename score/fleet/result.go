package fleet

import (
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// Result is what the fleet view keeps of one stored annotation: whom it
// belongs to, its scores (package score's, as view.ScoreAnnotation
// computed them) and what it cost. It is small (no segments, no raw
// answer), so a view of many thousand annotations stays small.
type Result struct {
	Episode string
	Robot   string
	Day     string // the episode's start, YYYY-MM-DD UTC
	Name    string
	Model   string
	Prompt  string
	Mode    string
	Camera  string
	// Invalid: the annotation is at fault (recorded invalid, refused by
	// score); Unscored: it is not (the truth cannot be scored against).
	// A Result with neither is scored.
	Invalid, Unscored bool
	TauK, TauZeta     float64
	SegmentF1, E2EF1  score.F1 // Matched dropped
	Requests          int
	Usage             episode.TokenUsage
	EstimatedTokens   int64
	CostUSD           float64
	// Seconds of episode time the annotation covers (one camera).
	Seconds float64
}

// Scored reports whether r has scores.
func (r *Result) Scored() bool { return !r.Invalid && !r.Unscored }

// NewResult keeps of s (a stored annotation of e, scored) what the fleet
// view needs.
func NewResult(e *episode.Episode, s view.AnnotationScore) Result {
	m, a := &e.Manifest, &s.Annotation
	r := Result{Episode: view.EpisodeID(e), Robot: m.Robot, Day: m.Start.UTC().Format("2006-01-02"), Name: s.Name,
		Model: a.Model, Prompt: a.Prompt, Mode: a.Mode, Camera: a.Camera,
		Invalid: s.Invalid != "", Unscored: s.Invalid == "" && s.Unscored != "",
		Requests: a.Requests, Usage: a.Usage, EstimatedTokens: a.EstimatedTokens, CostUSD: a.CostUSD,
		Seconds: m.Duration().Seconds()}
	if r.Mode == "" {
		r.Mode = episode.ModeSegment
	}
	if s.Score != nil {
		r.TauK, r.TauZeta = s.Score.Similarity.TauK, s.Score.Similarity.TauZeta
		r.SegmentF1, r.E2EF1 = s.Score.SegmentF1, s.Score.EndToEndF1
		r.SegmentF1.Matched, r.E2EF1.Matched = nil, nil
	}
	return r
}
