package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// row returns the matching table row with id anchor.
func row(t *testing.T, html, anchor string) string {
	t.Helper()
	m := regexp.MustCompile(`<tr id="` + anchor + `"[^>]*>.*?</tr>`).FindString(html)
	if m == "" {
		t.Fatalf("no row %s", anchor)
	}
	return m
}

// An annotation's section shows, per annotation segment and per FSM
// segment, its best IoU, its one-to-one match at 0.75 or "unmatched",
// the judge's verdict and the end-to-end match: score.Score's matching.
func TestReportShowsMatching(t *testing.T) {
	f := record(t, pickPlace, "")
	ann := annotation(t, vlmAnnotation)
	verdicts, err := score.ParseVerdicts([]byte(`{"judge":"a person","verdicts":[
		{"pred":"reach toward the bottle","truth":"reach","agree":true},
		{"pred":"grasp the bottle","truth":"grasp <bottle>","agree":false}]}`))
	must(t, err)
	html, _ := render(t, f.epDir, Options{Annotations: []string{ann}, Judge: verdicts})
	selfContained(t, html)

	// By hand: [0,4] x reach [0,4.2] = 0.952; [4,7.8] x grasp [4.2,7.5] =
	// 0.868 but the judge says the labels disagree; [7.8,23.6] overlaps
	// lift_and_carry [7.5,19] by 11.2/16.1 = 0.696 only: unmatched.
	for _, c := range []struct {
		anchor string
		want   []string
	}{
		{"ann-0-pred-0", []string{`data-match="matched"`, `0.952 <a href="#ann-0-fsm-0">FSM #0</a>`, `href="#ann-0-fsm-0">FSM #0</a> <span class="muted">IoU 0.952`, `b-ok">agree<`, `b-ok">FSM #0<`}},
		{"ann-0-pred-1", []string{`data-match="matched"`, `IoU 0.868`, `b-warn">disagree<`, `b-bad">unmatched</span></td></tr>`}},
		{"ann-0-pred-2", []string{`data-match="unmatched"`, `0.696 <a href="#ann-0-fsm-2">FSM #2</a>`, `b-bad">unmatched</span></td><td><span class="muted">–</span>`}},
		{"ann-0-fsm-2", []string{`data-match="unmatched"`, `lift_and_carry`, `0.696 <a href="#ann-0-pred-2">annotation #2</a>`}},
		{"ann-0-fsm-3", []string{`data-match="unmatched"`, `place`}},
	} {
		r := row(t, html, c.anchor)
		for _, w := range c.want {
			if !strings.Contains(r, w) {
				t.Errorf("row %s lacks %s:\n%s", c.anchor, w, r)
			}
		}
	}

	// Every row is the score package's matching, nothing recomputed.
	e, err := episode.Load("", f.epDir)
	must(t, err)
	pred, err := view.ReadSegmentation(ann)
	must(t, err)
	rep, err := score.Score(view.Segmentation(e), pred, score.Options{Judge: verdicts})
	must(t, err)
	check := func(side, other string, ms []score.SegmentMatch) {
		for _, s := range ms {
			r := row(t, html, fmt.Sprintf("ann-0-%s-%d", side, s.Index))
			want := "unmatched"
			if s.Match >= 0 {
				want = fmt.Sprintf("%s #%d</a> <span class=\"muted\">IoU %.3f", other, s.Match, s.MatchIoU)
			}
			if !strings.Contains(r, fmt.Sprintf("%.3f", s.BestIoU)) || !strings.Contains(r, want) {
				t.Errorf("%s %d: row %s does not show %+v", side, s.Index, r, s)
			}
		}
	}
	check("pred", "FSM", rep.Matching.Pred)
	check("fsm", "annotation", rep.Matching.Truth)
	if n := strings.Count(html, `data-match="matched"`); n != 2*rep.SegmentF1.Matches {
		t.Errorf("%d matched rows, want %d (both sides)", n, 2*rep.SegmentF1.Matches)
	}
}

// An F1 of 0 is explained: every row unmatched with its best IoU.
func TestReportExplainsZeroF1(t *testing.T) {
	f := record(t, pickPlace, "")
	ann := annotation(t, `{"segments":[{"start_sec":0,"end_sec":12,"subtask":"reach and grasp"},{"start_sec":12,"end_sec":23.6,"subtask":"carry and place"}]}`)
	html, _ := render(t, f.epDir, Options{Annotations: []string{ann}})
	if !strings.Contains(html, `<div class="v">0.000</div><div class="d">precision 0.000 (0/2)`) {
		t.Fatal("the fixture should score segment F1 0")
	}
	if n := strings.Count(html, `data-match="unmatched"`); n != 6 {
		t.Errorf("%d unmatched rows, want 6 (2 annotation + 4 FSM segments)", n)
	}
	// [12, 23.6] x lift_and_carry [7.5, 19]: 7/16.1 = 0.435
	if r := row(t, html, "ann-0-pred-1"); !strings.Contains(r, `0.435 <a href="#ann-0-fsm-2">FSM #2</a>`) {
		t.Errorf("row: %s", r)
	}
}
