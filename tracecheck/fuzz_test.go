package tracecheck

import "testing"

// FuzzParseRules: any rules file parses or fails with an error, never
// panics, and parsed rules evaluate over an episode.
func FuzzParseRules(f *testing.F) {
	f.Add([]byte(aliceRules))
	f.Add([]byte("checks: [{name: a, formula: 'tr.Exists(a'}]"))
	f.Add([]byte("map: {A: 'b(c)'}\nchecks: [{name: x, formula: 'not tr.BeforeLast(b).Exists(a)', fsm: /s}]"))
	e := ep("lunch", "GOTO_OFFICE", "ASK_LUNCH", "say(meet)", "A")
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRules(b)
		if err != nil {
			return
		}
		if got := len(r.Evaluate(e)); got > len(r.Checks) {
			t.Fatalf("%d results of %d checks", got, len(r.Checks))
		}
	})
}
