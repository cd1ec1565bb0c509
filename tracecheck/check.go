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

// A Result's size is bounded whatever the formula (up to
// rtl.MaxFormulaBytes, whose every query can be a witness): at most
// MaxWitness pieces of evidence, each query and the formula cut at
// MaxEchoBytes (ending in "…"). A store-wide check holds one episode's
// results at a time, and its JSON stays small per episode; the rules
// file has every formula whole.
const (
	MaxWitness   = 16
	MaxEchoBytes = 256
)

// Result is one check's outcome over one episode.
type Result struct {
	Check string `json:"check"`
	// Formula is the check's, cut at MaxEchoBytes.
	Formula string `json:"formula"`
	Sat     bool   `json:"sat"`
	// Witness: the first MaxWitness pieces of evidence, each query cut
	// at MaxEchoBytes; WitnessOmitted counts those left out.
	Witness        []rtl.Evidence `json:"witness"`
	WitnessOmitted int            `json:"witness_omitted,omitempty"`
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
		witness, omitted := boundWitness(res.Witness)
		out = append(out, Result{Check: c.Name, Formula: cut(c.Formula, MaxEchoBytes), Sat: res.Sat,
			Witness: witness, WitnessOmitted: omitted, Sentence: Sentence(t, res)})
	}
	return out
}

// boundWitness keeps the first MaxWitness pieces of evidence, each
// query cut at MaxEchoBytes, and counts the rest.
func boundWitness(ev []rtl.Evidence) (kept []rtl.Evidence, omitted int) {
	n := min(len(ev), MaxWitness)
	kept = make([]rtl.Evidence, n)
	for i := range n {
		kept[i] = ev[i]
		kept[i].Query = cut(ev[i].Query, MaxEchoBytes)
	}
	return kept, len(ev) - n
}

// cut shortens s to at most max bytes of valid UTF-8 ending in "…".
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max-len("…")], "") + "…"
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
// It stops reading evidence once past maxWitnessBytes, so a formula of
// thousands of queries costs no more than a short one.
func Sentence(t rtl.Trace, res rtl.Result) string {
	var b strings.Builder
	for i, ev := range res.Witness {
		if b.Len() > maxWitnessBytes {
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(evidence(t, ev))
	}
	return cut(b.String(), maxWitnessBytes)
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
