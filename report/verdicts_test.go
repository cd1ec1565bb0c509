package report

import (
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// TestVerdictsTable: the trace checks' verdicts in the manifest are a
// table; an episode without verdicts has none.
func TestVerdictsTable(t *testing.T) {
	f := record(t, pickPlace, "")
	html, _ := render(t, f.epDir, Options{})
	if strings.Contains(html, `data-table="verdicts"`) {
		t.Fatal("a verdicts table without verdicts")
	}
	s, err := epstore.Open(f.store, epstore.Options{})
	must(t, err)
	must(t, s.SetVerdicts(f.id, []episode.Verdict{{Check: "grasp-first", Sat: true, Witness: "found grasp"},
		{Check: "no-<drop>", Witness: "tr.Exists(drop): found drop at 3.00s"}}))
	must(t, s.Close())
	html, _ = render(t, f.epDir, Options{})
	for _, want := range []string{`data-table="verdicts"`, "grasp-first", `b-ok">SAT`, "no-&lt;drop&gt;", `b-bad">UNSAT`, "found drop at 3.00s"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
