package tracecheck

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// TextReport writes a check's report as text: each episode's verdicts
// and warnings as it comes (flushed, as its lines are one tabwriter
// block), then the episodes left out and the pass rates.
type TextReport struct{ W *tabwriter.Writer }

// Episode writes e's verdicts and warnings.
func (r TextReport) Episode(e EpisodeReport) error {
	w := r.W
	fmt.Fprintf(w, "%s  %s  %q\n", e.ID, e.Start.UTC().Format(time.RFC3339), e.Instruction)
	if len(e.Results) == 0 {
		fmt.Fprintf(w, "  (no check in scope)\n")
	}
	for _, res := range e.Results {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", satWord(res.Sat), res.Check, res.Sentence)
	}
	for _, p := range e.Problems {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
	return w.Flush()
}

// End writes the episodes left out and the pass rates per check, robot
// and day.
func (r TextReport) End(s *Summary, skipped []string) error {
	w := r.W
	for _, id := range skipped {
		fmt.Fprintf(w, "%s  left out: deleted while checking (the store's retention)\n", id)
	}
	if s != nil {
		rates := func(group string, rs []Rate) {
			fmt.Fprintf(w, "\nCHECK\t%s\tEPISODES\tSAT\tPASS RATE\n", group)
			for _, x := range rs {
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.1f%%\n", x.Check, x.Group, x.Episodes, x.Sat, 100*x.PassRate)
			}
		}
		rates("", s.Checks)
		rates("ROBOT", s.Robots)
		rates("DAY", s.Days)
	}
	return w.Flush()
}

func satWord(sat bool) string {
	if sat {
		return "SAT"
	}
	return "UNSAT"
}

// JSONReport writes a check's report as one JSON document,
// {"episodes":[...],"summary":...,"skipped":[...]} (summary and
// skipped omitted when empty), indented as json.Encoder.SetIndent("",
// "  ") would, one episode at a time.
type JSONReport struct {
	W io.Writer
	n int // episodes written
}

// Episode writes e, opening the document before the first.
func (r *JSONReport) Episode(e EpisodeReport) error {
	b, err := json.MarshalIndent(e, "    ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if r.n == 0 {
		sep = "{\n  \"episodes\": [\n    "
	}
	r.n++
	_, err = io.WriteString(r.W, sep+string(b))
	return err
}

// End writes the summary and the episodes left out, and closes the
// document.
func (r *JSONReport) End(s *Summary, skipped []string) error {
	tail := "\n  ]"
	if r.n == 0 {
		tail = "{\n  \"episodes\": []"
	}
	for _, f := range []struct {
		key string
		v   any
		set bool
	}{{"summary", s, s != nil}, {"skipped", skipped, len(skipped) > 0}} {
		if !f.set {
			continue
		}
		b, err := json.MarshalIndent(f.v, "  ", "  ")
		if err != nil {
			return err
		}
		tail += ",\n  \"" + f.key + "\": " + string(b)
	}
	_, err := io.WriteString(r.W, tail+"\n}\n")
	return err
}
