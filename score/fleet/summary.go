package fleet

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Summary is the fleet view of a store: every annotated episode's
// annotations scored against its FSM truth and added up per group.
type Summary struct {
	// By is the grouping (ByModel, ByRobot, ByDay).
	By string `json:"by"`
	// Encoder and Judge name what produced tau_zeta and the end-to-end
	// F1.
	Encoder string `json:"encoder"`
	Judge   string `json:"judge"`
	// Episodes in the store, Annotated of them with an annotation;
	// Pending annotations are not read yet (the sink's bounded refresh
	// reads them next).
	Episodes  int `json:"episodes"`
	Annotated int `json:"annotated"`
	Pending   int `json:"pending"`
	// Groups, then each mode's total (Key "all").
	Groups []Group `json:"groups"`
	Totals []Group `json:"totals"`
	// Problems: episodes that could not be read (their annotations are
	// left out), at most 20.
	Problems []string `json:"problems"`
}

// WriteText renders the summary for a terminal.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "fleet view: %d episodes, %d annotated", s.Episodes, s.Annotated)
	if s.Pending > 0 {
		fmt.Fprintf(w, ", %d annotations not read yet", s.Pending)
	}
	fmt.Fprintf(w, "; by %s\ntau_zeta encoder: %s\nend-to-end judge: %s\n", s.By, s.Encoder, s.Judge)
	fmt.Fprintf(w, "tau_k, tau_zeta: mean over scored annotations; F1 pooled: matches over all segments of the group;\n"+
		"F1 mean: mean of each annotation's F1 (one annotation: an episode and camera). Invalid annotations are\n"+
		"counted, not scored. Segment F1 at IoU >= 0.75; published on WGO-Bench: 0.306 segment, 0.168 end-to-end.\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "MODE\t%s\tEPISODES\tANNOTATIONS\tINVALID\tUNSCORED\tSEGMENTS T/P\tTAU_K\tTAU_ZETA\t"+
		"F1 POOLED\tF1 MEAN\tE2E POOLED\tE2E MEAN\tTOKENS\tCOST $\t$/CAM-H\t\n", upper(s.By))
	for _, part := range [][]Group{s.Groups, s.Totals} {
		for _, g := range part {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d/%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%.4f\t%.3f\t\n",
				g.Mode, g.Key, g.Episodes, g.Annotations, g.Invalid, g.Unscored, g.TruthSegments, g.PredSegments,
				g.TauK, g.TauZeta, g.SegmentF1.Pooled.F1, g.SegmentF1.Mean, g.EndToEndF1.Pooled.F1, g.EndToEndF1.Mean,
				g.PromptTokens+g.CompletionTokens, g.CostUSD, g.CostPerCameraHour)
		}
	}
	if len(s.Groups) == 0 {
		fmt.Fprintf(tw, "(no annotations: edged annotate writes them)\t\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range s.Problems {
		fmt.Fprintf(w, "PROBLEM  %s\n", p)
	}
	return nil
}

func upper(by string) string {
	switch by {
	case ByRobot:
		return "ROBOT"
	case ByDay:
		return "DAY"
	}
	return "MODEL@PROMPT"
}
