package score

import (
	"fmt"
	"strings"
)

// Matching explains segment F1 segment by segment, so a reader can see
// why a score is what it is (an F1 of 0 with a tau_k of 0.8 is a
// prediction that overlaps everything and matches nothing at 0.75). It
// is derived from the F1 results themselves (their Matched), never
// recomputed, so it always agrees with the numbers it explains.
type Matching struct {
	// IoUThreshold a pair needs to match (MatchIoU).
	IoUThreshold float64 `json:"iou_threshold"`
	// Judge named the label verdicts (LabelsAgree, EndToEnd).
	Judge string `json:"judge"`
	// Truth[j] is reference segment j; Pred[i] is predicted segment i
	// as scored (after Snap, and in seconds when the units were mixed).
	Truth []SegmentMatch `json:"truth"`
	Pred  []SegmentMatch `json:"pred"`
}

// SegmentMatch is how one segment fared. "Other" indexes the other
// side: a prediction for a truth segment, a truth segment for a
// prediction. -1 means none.
type SegmentMatch struct {
	Index int     `json:"index"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Label string  `json:"label"`
	// BestIoU is the highest IoU with any segment of the other side, and
	// Best that segment (-1 and 0 when nothing overlaps). A BestIoU under
	// the threshold is why a segment is unmatched.
	BestIoU float64 `json:"best_iou"`
	Best    int     `json:"best"`
	// Match is the segment matched one to one at IoU >= the threshold in
	// segment F1 (labels ignored), -1 when unmatched; MatchIoU its IoU.
	Match    int     `json:"match"`
	MatchIoU float64 `json:"match_iou"`
	// LabelsAgree is the judge's verdict on the Match pair; absent when
	// unmatched (no pair to judge).
	LabelsAgree *bool `json:"labels_agree,omitempty"`
	// EndToEnd is the segment matched in end-to-end F1 (IoU and labels),
	// -1 when unmatched.
	EndToEnd int `json:"end_to_end_match"`
}

// Explain builds the Matching of truth and pred from their segment F1
// (seg) and end-to-end F1 (e2e), as returned by SegmentF1 for the same
// inputs, with judge giving the label verdicts. truth and pred are the
// inputs given to SegmentF1 (pred is snapped here, as SegmentF1 does).
func Explain(truth, pred Segmentation, seg, e2e F1, judge Judge) Matching {
	p := Snap(pred, truth)
	m := Matching{IoUThreshold: MatchIoU, Judge: judge.Name(),
		Truth: sides(truth), Pred: sides(p)}
	for j := range m.Truth {
		for i := range m.Pred {
			iou := IoU(p.Segments[i], truth.Segments[j])
			better(&m.Truth[j], i, iou)
			better(&m.Pred[i], j, iou)
		}
	}
	for j := range m.Truth {
		if i := matchedAt(seg.Matched, j, len(m.Pred)); i >= 0 {
			iou := IoU(p.Segments[i], truth.Segments[j])
			agree := judge.Agree(p.Segments[i].Label, truth.Segments[j].Label)
			m.Truth[j].Match, m.Truth[j].MatchIoU, m.Truth[j].LabelsAgree = i, iou, &agree
			m.Pred[i].Match, m.Pred[i].MatchIoU, m.Pred[i].LabelsAgree = j, iou, &agree
		}
		if i := matchedAt(e2e.Matched, j, len(m.Pred)); i >= 0 {
			m.Truth[j].EndToEnd, m.Pred[i].EndToEnd = i, j
		}
	}
	return m
}

func sides(s Segmentation) []SegmentMatch {
	out := make([]SegmentMatch, len(s.Segments))
	for k, g := range s.Segments {
		out[k] = SegmentMatch{Index: k, Start: g.Start, End: g.End, Label: g.Label, Best: -1, Match: -1, EndToEnd: -1}
	}
	return out
}

// better records other as m's best counterpart when iou beats the best
// so far (the first of equals wins, so the result is deterministic).
func better(m *SegmentMatch, other int, iou float64) {
	if iou > m.BestIoU {
		m.BestIoU, m.Best = iou, other
	}
}

// matchedAt is matched[j] when it is a valid prediction index, else -1.
func matchedAt(matched []int, j, n int) int {
	if j < len(matched) && matched[j] >= 0 && matched[j] < n {
		return matched[j]
	}
	return -1
}

// maxTextLabel caps a label in the text rendering (the JSON has it whole).
const maxTextLabel = 40

// writeText renders the matching compactly: one line per truth segment
// (its match, or why it has none), then one per unmatched prediction
// (matched ones already appear beside their truth segment).
func (m Matching) writeText(b *strings.Builder) {
	if len(m.Truth) == 0 && len(m.Pred) == 0 {
		return
	}
	fmt.Fprintf(b, "\nmatching at IoU >= %.2g (segment F1, one to one; labels by the judge above)\n", m.IoUThreshold)
	for _, t := range m.Truth {
		fmt.Fprintf(b, "  truth #%d %s: ", t.Index, segText(t))
		if t.Match < 0 {
			b.WriteString(unmatchedText(t, "pred") + "\n")
			continue
		}
		verdict := "labels disagree"
		if t.LabelsAgree != nil && *t.LabelsAgree {
			verdict = "labels agree"
		}
		fmt.Fprintf(b, "pred #%d, IoU %.3f, %s", t.Match, t.MatchIoU, verdict)
		if t.EndToEnd >= 0 {
			fmt.Fprintf(b, ", end-to-end match")
		}
		b.WriteString("\n")
	}
	for _, p := range m.Pred {
		if p.Match < 0 {
			fmt.Fprintf(b, "  pred  #%d %s: %s\n", p.Index, segText(p), unmatchedText(p, "truth"))
		}
	}
}

func segText(s SegmentMatch) string {
	l := []rune(s.Label)
	if len(l) > maxTextLabel {
		l = append(l[:maxTextLabel-1], '…')
	}
	return fmt.Sprintf("[%.6g, %.6g] %q", s.Start, s.End, string(l))
}

func unmatchedText(s SegmentMatch, other string) string {
	if s.Best < 0 {
		return "unmatched, overlaps no " + other
	}
	return fmt.Sprintf("unmatched, best IoU %.3f with %s #%d", s.BestIoU, other, s.Best)
}
