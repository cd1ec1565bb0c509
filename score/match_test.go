package score

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// The matching says, per segment, its best IoU, its one-to-one match at
// 0.75 or "unmatched", and the judge's verdict on matched pairs.
func TestMatchingExplainsF1(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 10, "reach for the cup"}, {10, 12, "grasp cup"}, {12, 30, "lift cup"}}}
	pred := Segmentation{Segments: []Segment{{1.5, 10.2, "reaching the cup"}, {10.2, 11, "close the gripper"}, {11, 27, "move home"}}}
	r, err := Score(ref, pred, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Matching
	if m.IoUThreshold != MatchIoU || m.Judge != (LexicalJudge{}).Name() || len(m.Truth) != 3 || len(m.Pred) != 3 {
		t.Fatalf("matching %+v", m)
	}
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		got     SegmentMatch
		best    int
		bestIoU float64
		match   int
		agree   *bool
		e2e     int
	}{
		// pred 0 is snapped to start at 0: [0, 10.2] x [0, 10] = 10/10.2
		{"truth 0", m.Truth[0], 0, 10 / 10.2, 0, &yes, 0},
		{"truth 1", m.Truth[1], 1, 0.8 / 2, -1, nil, -1},
		// pred 2 is snapped to end at 30: [11, 30] x [12, 30] = 18/19, labels differ
		{"truth 2", m.Truth[2], 2, 18.0 / 19, 2, &no, -1},
		{"pred 0", m.Pred[0], 0, 10 / 10.2, 0, &yes, 0},
		{"pred 1", m.Pred[1], 1, 0.8 / 2, -1, nil, -1},
		{"pred 2", m.Pred[2], 2, 18.0 / 19, 2, &no, -1},
	} {
		g := tc.got
		if g.Best != tc.best || !near(g.BestIoU, tc.bestIoU) || g.Match != tc.match || g.EndToEnd != tc.e2e ||
			(tc.agree == nil) != (g.LabelsAgree == nil) || (tc.agree != nil && *tc.agree != *g.LabelsAgree) {
			t.Errorf("%s: %+v (agree %v), want best %d IoU %.3f match %d agree %v e2e %d", tc.name, g, deref(g.LabelsAgree),
				tc.best, tc.bestIoU, tc.match, deref(tc.agree), tc.e2e)
		}
		if g.Match >= 0 && !near(g.MatchIoU, g.BestIoU) {
			t.Errorf("%s: match IoU %v, best %v", tc.name, g.MatchIoU, g.BestIoU)
		}
	}
	if m.Pred[0].Start != 0 || m.Pred[2].End != 30 {
		t.Errorf("predictions are not shown as scored (snapped): %+v %+v", m.Pred[0], m.Pred[2])
	}

	// JSON carries it, the text shows it compactly.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"matching":{"iou_threshold":0.75`, `"best":1,"match":-1,"match_iou":0,"end_to_end_match":-1`,
		`"labels_agree":false`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`truth #0 [0, 10] "reach for the cup": pred #0, IoU 0.980, labels agree, end-to-end match`,
		`truth #1 [10, 12] "grasp cup": unmatched, best IoU 0.400 with pred #1`,
		`truth #2 [12, 30] "lift cup": pred #2, IoU 0.947, labels disagree`,
		`pred  #1 [10.2, 11] "close the gripper": unmatched, best IoU 0.400 with truth #1`,
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "pred  #0") {
		t.Errorf("matched predictions are listed again:\n%s", text.String())
	}
}

// A prediction that overlaps nothing says so, and F1 0 is explained.
func TestMatchingNoOverlap(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 10, "a"}, {10, 20, "b"}}}
	pred := Segmentation{Segments: []Segment{{0, 1, "a"}, {2, 3, "b"}, {4, 20, "c"}}}
	r, err := Score(ref, pred, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.SegmentF1.F1 != 0 {
		t.Fatalf("F1 %v", r.SegmentF1.F1)
	}
	if p := r.Matching.Pred[1]; p.Best != 0 || !near(p.BestIoU, 0.1) || p.Match != -1 {
		t.Errorf("pred 1: %+v", p)
	}
	var text strings.Builder
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), `truth #1 [10, 20] "b": unmatched, best IoU 0.625 with pred #2`) {
		t.Errorf("text:\n%s", text.String())
	}
	touching := Segmentation{Segments: []Segment{{0, 5, "x"}, {20, 30, "y"}}}
	r, _ = Score(Segmentation{Segments: []Segment{{0, 5, "x"}, {6, 19, "z"}, {20, 30, "y"}}}, touching, Options{})
	if g := r.Matching.Truth[1]; g.Best != -1 || g.Match != -1 {
		t.Errorf("a truth segment nothing overlaps: %+v", g)
	}
	text.Reset()
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), `"z": unmatched, overlaps no pred`) {
		t.Errorf("text:\n%s", text.String())
	}
}

// On random inputs the matching agrees with the F1 counts and is the same
// relation seen from both sides.
func TestMatchingAgreesWithF1(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		a, b := randomSeg(r, Seconds), randomSeg(r, Seconds)
		rep, err := Score(a, b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := rep.Matching
		seg, e2e := 0, 0
		for j, tr := range m.Truth {
			if tr.Match >= 0 {
				seg++
				if p := m.Pred[tr.Match]; p.Match != j || p.MatchIoU != tr.MatchIoU || *p.LabelsAgree != *tr.LabelsAgree ||
					tr.MatchIoU < MatchIoU || tr.MatchIoU > tr.BestIoU {
					t.Fatalf("truth %d %+v vs pred %+v", j, tr, p)
				}
			}
			if tr.EndToEnd >= 0 {
				e2e++
				if m.Pred[tr.EndToEnd].EndToEnd != j {
					t.Fatalf("end-to-end: truth %d -> %d -> %d", j, tr.EndToEnd, m.Pred[tr.EndToEnd].EndToEnd)
				}
			}
		}
		if seg != rep.SegmentF1.Matches || e2e != rep.EndToEndF1.Matches {
			t.Fatalf("matching has %d/%d matches, F1 says %d/%d", seg, e2e, rep.SegmentF1.Matches, rep.EndToEndF1.Matches)
		}
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
