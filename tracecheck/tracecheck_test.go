package tracecheck

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// ep is a closed episode of one segment per label, 2 s each.
func ep(instruction string, labels ...string) *episode.Episode {
	e := &episode.Episode{Manifest: episode.Manifest{ID: "arm-01-x", Robot: "arm-01", Start: t0, Closed: true,
		Instruction: instruction}}
	for i, l := range labels {
		e.Segments = append(e.Segments, episode.Segment{Index: i, Start: t0.Add(time.Duration(2*i) * time.Second),
			StartSec: float64(2 * i), EndSec: float64(2*i + 2), Label: l, Source: "/task/state", Kind: "string"})
	}
	return e
}

const aliceRules = `
checks:
  - name: alice-yes
    instruction: lunch
    formula: tr.AfterFirst(goto(office)).AfterFirst(ask(lunch)).Exists(say(meet))
  - name: alice-no
    instruction: lunch
    formula: >-
      not tr.AfterFirst(goto(office)).AfterFirst(ask(lunch)).Exists(say(meet))
      and tr.AfterFirst(goto(office)).Exists(ask(lunch))
  - name: no-pick
    formula: not tr.Exists(pick)
    fsm: /task/state
map:
  GOTO_OFFICE: goto(office)
  ASK_LUNCH: ask(lunch)
`

func TestAliceEpisodes(t *testing.T) {
	r, err := ParseRules([]byte(aliceRules))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		e    *episode.Episode
		want string // check=sat pairs in order
	}{
		{"yes", ep("ask Alice about lunch", "goto(start)", "GOTO_OFFICE", "ASK_LUNCH", "say(meet)"),
			"alice-yes=true alice-no=false no-pick=true"},
		{"no", ep("ask Alice about lunch", "goto(start)", "goto(office)", "ask(lunch)", "goto(start)"),
			"alice-yes=false alice-no=true no-pick=true"},
		{"wrong order", ep("ask Alice about LUNCH", "GOTO_OFFICE", "say(meet)", "ask(lunch)", "pick"),
			"alice-yes=false alice-no=true no-pick=false"},
		{"out of scope", ep("tidy up", "pick"), "no-pick=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, res := range r.Evaluate(tc.e) {
				got = append(got, res.Check+"="+map[bool]string{true: "true", false: "false"}[res.Sat])
				if res.Sentence == "" {
					t.Errorf("%s: no witness", res.Check)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
		})
	}
	res := r.Evaluate(ep("lunch", "GOTO_OFFICE", "ASK_LUNCH", "say(meet)"))[0]
	if want := `found say(meet) at 4.00s (element 2)`; !strings.Contains(res.Sentence, want) {
		t.Errorf("witness %q, want %q", res.Sentence, want)
	}
	res = r.Evaluate(ep("lunch", "GOTO_OFFICE", "ASK_LUNCH", "pick"))[0]
	if want := `no match in elements 2-2 (4.00s-6.00s)`; !strings.Contains(res.Sentence, want) {
		t.Errorf("witness %q, want %q", res.Sentence, want)
	}
}

func TestTraceElements(t *testing.T) {
	r := &Rules{Map: map[string]string{"NAV": "goto(kitchen)"}}
	e := ep("", "NAV", "ask(lunch)", "PICK", "Goal reached")
	e.Segments[3].Kind, e.Segments[3].Path, e.Segments[3].Source = "actionlib", "move_base", "/move_base/status"
	e.Segments = append(e.Segments, episode.Segment{Index: 4, Start: t0.Add(10 * time.Second), StartSec: 10,
		Label: "move_base", Path: "move_base", Kind: "actionlib", Source: "/move_base/status"},
		// A goal whose fields were recorded from the goal topic.
		episode.Segment{Index: 5, Start: t0.Add(11 * time.Second), StartSec: 11,
			Label: "pick", Path: "pick", Kind: "actionlib", Source: "/pick/status", Args: []string{"cup", "table"}})
	e.Manifest.Closed = false
	e.Transitions = []episode.Transition{{Sec: 1, Opens: "NAV"}, {Sec: 12, Opens: "say(bye)", Source: "/task/state"}}
	var got []string
	for _, el := range r.Trace(e, "") {
		got = append(got, el.String())
	}
	want := "goto(kitchen) ask(lunch) PICK move_base(Goal reached) move_base pick(cup, table) say(bye)"
	if strings.Join(got, " ") != want {
		t.Fatalf("trace %q, want %q", strings.Join(got, " "), want)
	}
	if n := len(r.Trace(e, "/move_base/status")); n != 2 {
		t.Errorf("fsm-scoped trace has %d elements, want 2", n)
	}
}

// The open goals of an open episode (a live store) are elements with
// their goal's fields, from the transition that opened them or from a
// goal transition after it (the goal came after its status), as their
// closed segments will be.
func TestTraceOpenGoals(t *testing.T) {
	r := &Rules{Map: map[string]string{}}
	e := ep("", "reach")
	e.Manifest.Closed = false
	goal := func(sec float64, kind, opens, id string, args ...string) episode.Transition {
		return episode.Transition{Sec: sec, Kind: kind, Source: "/pick/status", SrcTyp: "actionlib", Opens: opens,
			Path: "pick", GoalID: id, Args: args}
	}
	e.Transitions = []episode.Transition{
		goal(2, episode.TransitionState, "pick", "g1", "cup", "table"),
		goal(3, episode.TransitionState, "pick", "g2"),
		goal(3.5, episode.TransitionGoal, "", "g2", "bottle"),
		goal(3.6, episode.TransitionGoal, "", "g3", "plate"), // no open goal g3
	}
	var got []string
	for _, el := range r.Trace(e, "") {
		got = append(got, el.String())
	}
	if want := "reach pick(cup, table) pick(bottle)"; strings.Join(got, " ") != want {
		t.Fatalf("trace %q, want %q", strings.Join(got, " "), want)
	}
}

func TestRulesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"checks: [{name: a, formula: 'tr.Exists(a'}]", "checks[0].formula: 1:12: expected ')'"},
		{"checks: [{name: a, formula: 'tr.Exists(a)'}, {name: b, formula: 'tr.AfterFirst(x).Exists(y'}]", "checks[1].formula: 1:26: expected ')'"},
		{"checks: [{name: 'a b', formula: 'tr.Exists(a)'}]", "checks[0].name:"},
		{"checks: [{formula: 'tr.Exists(a)'}]", "checks[0].name:"},
		{"checks: [{name: a, formula: 'tr.Exists(a)'}, {name: a, formula: 'tr.Exists(b)'}]", "checks[1].name: \"a\" is also checks[0]'s name"},
		{"checks: [{name: a, formula: 'tr.Exists(a)', instruction: '('}]", "checks[0].instruction: not a regular expression"},
		{"checks: [{name: a, formula: 'tr.Exists(a)', when: x}]", "field when not found"},
		{"map: {X: ''}", `map["X"]: empty element`},
		{"map: {X: 'goto(office'}", `map["X"]: "goto(office" is not an element`},
		{"map: {X: 'goto(a(b))'}", `map["X"]: "goto(a(b))" is not an element`},
		{`map: {X: 'say("meet)'}`, `is not an element`},
		{"map: {X: '(office)'}", `is not an element`},
		{"checks: 3", "rules: yaml"},
		{strings.Repeat("#", MaxRulesBytes+1), "more than"},
	} {
		_, err := ParseRules([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.50q: %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseRules([]byte(`map: {A: goto, B: 'goto(office, "a, b")', C: 'pick()', D: /SM/GRASP}`)); err != nil {
		t.Errorf("well-formed map: %v", err)
	}
	if r, err := ParseRules(nil); err != nil || len(r.Checks) != 0 {
		t.Errorf("empty rules: %v", err)
	}
}

func TestSummarize(t *testing.T) {
	v := func(sat ...bool) []episode.Verdict {
		var out []episode.Verdict
		for _, s := range sat {
			out = append(out, episode.Verdict{Check: "c", Sat: s})
		}
		return out
	}
	ms := []episode.Manifest{
		{Robot: "a", Start: t0, Verdicts: v(true)},
		{Robot: "a", Start: t0.Add(24 * time.Hour), Verdicts: v(false)},
		{Robot: "b", Start: t0, Verdicts: v(true)},
		{Robot: "b", Start: t0},
	}
	s := Summarize(ms)
	if len(s.Checks) != 1 || s.Checks[0].Episodes != 3 || s.Checks[0].Sat != 2 {
		t.Fatalf("checks %+v", s.Checks)
	}
	if len(s.Robots) != 2 || s.Robots[0].Group != "a" || s.Robots[0].PassRate != 0.5 || s.Robots[1].PassRate != 1 {
		t.Errorf("robots %+v", s.Robots)
	}
	if len(s.Days) != 2 || s.Days[0].Group != "2025-03-01" || s.Days[0].Sat != 2 || s.Days[1].Sat != 0 {
		t.Errorf("days %+v", s.Days)
	}
}
