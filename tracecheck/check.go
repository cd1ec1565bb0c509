package tracecheck

import (
	"fmt"
	"strings"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/rtl"
)

// maxWitnessBytes caps a verdict's witness sentence (verdicts travel in
// every manifest).
const maxWitnessBytes = 512

// Result is one check's outcome over one episode.
type Result struct {
	Check   string         `json:"check"`
	Formula string         `json:"formula"`
	Sat     bool           `json:"sat"`
	Witness []rtl.Evidence `json:"witness"`
	// Sentence says what decided it, as the manifest's verdict holds it.
	Sentence string `json:"sentence"`
}

// Verdict is the result as the manifest stores it.
func (r Result) Verdict() episode.Verdict {
	return episode.Verdict{Check: r.Check, Sat: r.Sat, Witness: r.Sentence}
}

// Evaluate evaluates every check in scope of the episode (its
// instruction matches the check's; checks out of scope give no result).
func (r *Rules) Evaluate(e *episode.Episode) []Result {
	var out []Result
	traces := map[string]rtl.Trace{}
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.instruction != nil && !c.instruction.MatchString(e.Manifest.Instruction) {
			continue
		}
		t, ok := traces[c.FSM]
		if !ok {
			t = r.Trace(e, c.FSM)
			traces[c.FSM] = t
		}
		res := c.formula.Evaluate(t)
		out = append(out, Result{Check: c.Name, Formula: c.Formula, Sat: res.Sat,
			Witness: nonNil(res.Witness), Sentence: Sentence(t, res)})
	}
	return out
}

// Verdicts are the manifest's verdicts of results.
func Verdicts(rs []Result) []episode.Verdict {
	var out []episode.Verdict
	for _, r := range rs {
		out = append(out, r.Verdict())
	}
	return out
}

// Sentence says what decided res over t: the element each deciding query
// found, or the part of the trace it searched in vain.
func Sentence(t rtl.Trace, res rtl.Result) string {
	parts := make([]string, 0, len(res.Witness))
	for _, ev := range res.Witness {
		parts = append(parts, evidence(t, ev))
	}
	s := strings.Join(parts, "; ")
	if len(s) > maxWitnessBytes {
		s = strings.ToValidUTF8(s[:maxWitnessBytes-len("…")], "") + "…"
	}
	return s
}

func evidence(t rtl.Trace, ev rtl.Evidence) string {
	if ev.Found {
		el := t[ev.Element]
		return fmt.Sprintf("%s: found %s at %.2fs (element %d)", ev.Query, describe(el), el.Start, ev.Element)
	}
	from, to := ev.Searched.From, ev.Searched.To
	if from == to {
		return fmt.Sprintf("%s: nothing to search (the slice is empty)", ev.Query)
	}
	return fmt.Sprintf("%s: no match in elements %d-%d (%.2fs-%.2fs)", ev.Query, from, to-1, t[from].Start, t[to-1].End)
}

func describe(el rtl.Element) string {
	if el.Label != "" {
		return fmt.Sprintf("%s (state %q)", el, el.Label)
	}
	return el.String()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
