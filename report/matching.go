package report

import (
	"fmt"
	"html/template"
	"strconv"

	"github.com/edged-robotics/edged/score"
)

// matchRow is one segment in an annotation's matching tables: an
// annotation segment against the FSM segments, or an FSM segment against
// the annotation. It shows score.Matching as computed by score.Score, so
// the page and `edged score` cannot disagree.
type matchRow struct {
	Index       int
	Anchor      string
	Label       string
	Color       template.CSS
	Start, End  string
	BestIoU     string // "0.412", or "–" when nothing overlaps
	Best        string // the other side's segment with the best IoU, "" when none
	BestHref    string
	Match       string // "FSM #2", or "unmatched"
	MatchHref   string
	MatchIoU    string
	Badge       string // b-ok matched, b-bad unmatched
	Labels      string // the judge's verdict on the matched pair, "" when unmatched
	LabelsBadge string
	EndToEnd    string // "matched" or "unmatched"
	E2EBadge    string
}

// matchRows builds both matching tables of annotation k.
func (p *page) matchRows(k int, a *Annotation) {
	if a.Score == nil {
		return
	}
	m := a.Score.Matching
	pre := "ann-" + strconv.Itoa(k)
	predAnchor := func(i int) string { return pre + "-pred-" + strconv.Itoa(i) }
	truthAnchor := func(j int) string { return pre + "-fsm-" + strconv.Itoa(j) }
	for _, s := range m.Pred {
		a.PredRows = append(a.PredRows, p.matchRow(s, predAnchor(s.Index), "FSM", truthAnchor))
	}
	for _, s := range m.Truth {
		a.TruthRows = append(a.TruthRows, p.matchRow(s, truthAnchor(s.Index), "annotation", predAnchor))
	}
}

func (p *page) matchRow(s score.SegmentMatch, anchor, other string, otherAnchor func(int) string) matchRow {
	r := matchRow{Index: s.Index, Anchor: anchor, Label: s.Label, Color: p.colors.of(s.Label).css(),
		Start: p.clock(s.Start), End: p.clock(s.End), BestIoU: "–",
		Match: "unmatched", Badge: "b-bad", EndToEnd: "unmatched", E2EBadge: "b-bad"}
	if s.Best >= 0 {
		r.BestIoU = fmt.Sprintf("%.3f", s.BestIoU)
		r.Best = fmt.Sprintf("%s #%d", other, s.Best)
		r.BestHref = "#" + otherAnchor(s.Best)
	}
	if s.Match >= 0 {
		r.Match, r.MatchHref, r.Badge = fmt.Sprintf("%s #%d", other, s.Match), "#"+otherAnchor(s.Match), "b-ok"
		r.MatchIoU = fmt.Sprintf("%.3f", s.MatchIoU)
	}
	if s.LabelsAgree != nil {
		r.Labels, r.LabelsBadge = "disagree", "b-warn"
		if *s.LabelsAgree {
			r.Labels, r.LabelsBadge = "agree", "b-ok"
		}
	}
	if s.EndToEnd >= 0 {
		r.EndToEnd, r.E2EBadge = fmt.Sprintf("%s #%d", other, s.EndToEnd), "b-ok"
	}
	return r
}
