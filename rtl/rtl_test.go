package rtl

import (
	"errors"
	"strings"
	"testing"
)

func trace(states ...string) Trace {
	t := make(Trace, len(states))
	for i, s := range states {
		t[i] = ParseElement(s)
	}
	return t
}

// The paper's example: "tell Alice in her office to meet me in the lobby
// if she would like lunch".
const (
	aliceYes = "tr.AfterFirst(goto(office)).AfterFirst(ask(lunch)).Exists(say(meet))"
	aliceNo  = "not tr.AfterFirst(goto(office)).AfterFirst(ask(lunch)).Exists(say(meet)) and tr.AfterFirst(goto(office)).Exists(ask(lunch))"
)

func TestAlice(t *testing.T) {
	yes := trace("goto(start)", "goto(office)", "ask(lunch)", "say(meet)", "goto(start)")
	no := trace("goto(start)", "goto(office)", "ask(lunch)", "goto(start)")
	wrongOrder := trace("goto(start)", "goto(office)", "say(meet)", "ask(lunch)", "goto(start)")
	neverWent := trace("goto(start)", "ask(lunch)", "say(meet)")
	for _, tc := range []struct {
		name    string
		formula string
		tr      Trace
		sat     bool
		element int // the witness's element, -1: it searched
	}{
		{"yes/yes-check", aliceYes, yes, true, 3},
		{"no/yes-check", aliceYes, no, false, -1},
		{"wrong order/yes-check", aliceYes, wrongOrder, false, -1},
		{"never went/yes-check", aliceYes, neverWent, false, -1},
		{"no/no-check", aliceNo, no, true, -1},
		{"yes/no-check", aliceNo, yes, false, 3},
		// Saying before asking is not what the no-check forbids.
		{"wrong order/no-check", aliceNo, wrongOrder, true, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(tc.formula)
			if err != nil {
				t.Fatal(err)
			}
			r := f.Evaluate(tc.tr)
			if r.Sat != tc.sat {
				t.Fatalf("sat = %v, want %v (witness %+v)", r.Sat, tc.sat, r.Witness)
			}
			if len(r.Witness) == 0 || r.Witness[0].Element != tc.element {
				t.Errorf("witness %+v, want element %d first", r.Witness, tc.element)
			}
		})
	}
}

func TestOperators(t *testing.T) {
	tr := trace("a", "b(1)", "c", "b(2)", "d")
	for _, tc := range []struct {
		formula  string
		sat      bool
		searched Span // of the first evidence
	}{
		{"tr.Exists(a)", true, Span{0, 5}},
		{"tr.Exists(z)", false, Span{0, 5}},
		{"tr.AfterFirst(b).Exists(c)", true, Span{2, 5}},
		{"tr.AfterFirst(b).Exists(a)", false, Span{2, 5}},
		{"tr.AfterFirst(z).Exists(a)", false, Span{5, 5}}, // no match: empty
		{"tr.BeforeFirst(b).Exists(a)", true, Span{0, 1}},
		{"tr.BeforeFirst(b).Exists(c)", false, Span{0, 1}},
		{"tr.BeforeFirst(z).Exists(d)", true, Span{0, 5}}, // no match: whole
		{"tr.AfterLast(b).Exists(d)", true, Span{4, 5}},
		{"tr.AfterLast(b).Exists(c)", false, Span{4, 5}},
		{"tr.AfterLast(z).Exists(a)", false, Span{5, 5}},
		{"tr.BeforeLast(b).Exists(c)", true, Span{0, 3}},
		{"tr.BeforeLast(b).Exists(d)", false, Span{0, 3}},
		{"tr.BeforeLast(z).Exists(d)", true, Span{0, 5}},
		{"tr.BeforeLast(b).AfterFirst(b).Exists(c)", true, Span{2, 3}},
		{"tr.AfterFirst(b(2)).Exists(b)", false, Span{4, 5}},
		{"tr.Exists(b(1))", true, Span{0, 5}},
		{"tr.Exists(b(3))", false, Span{0, 5}},
		{"tr.Exists(b(1, x))", false, Span{0, 5}}, // more args than the element
		{"tr.Exists(b())", true, Span{0, 5}},
		{`tr.Exists("b|c"("[12]"))`, true, Span{0, 5}},
		{"tr.Exists(.)", true, Span{0, 5}},
		{"tr.Exists(a) and tr.Exists(d)", true, Span{0, 5}},
		{"tr.Exists(a) and tr.Exists(z)", false, Span{0, 5}},
		{"tr.Exists(z) or tr.Exists(d)", true, Span{0, 5}},
		{"tr.Exists(z) or tr.Exists(y)", false, Span{0, 5}},
		{"not tr.Exists(z)", true, Span{0, 5}},
		{"!tr.Exists(a)", false, Span{0, 5}},
		{"tr.Exists(a) && (tr.Exists(z) || !tr.Exists(y))", true, Span{0, 5}},
		{"not (tr.Exists(a) and tr.Exists(z))", true, Span{0, 5}},
		{"not tr.Exists(a) and tr.Exists(z)", false, Span{0, 5}}, // not binds tighter
		{"tr.Exists(z) and tr.Exists(a) or tr.Exists(d)", true, Span{0, 5}},
	} {
		t.Run(tc.formula, func(t *testing.T) {
			f, err := Parse(tc.formula)
			if err != nil {
				t.Fatal(err)
			}
			r := f.Evaluate(tr)
			if r.Sat != tc.sat {
				t.Fatalf("sat = %v, want %v (%+v)", r.Sat, tc.sat, r.Witness)
			}
			if r.Witness[0].Searched != tc.searched {
				t.Errorf("searched %v, want %v", r.Witness[0].Searched, tc.searched)
			}
			// String parses back to a formula of the same meaning.
			g, err := Parse(f.String())
			if err != nil {
				t.Fatalf("String %q does not parse: %v", f.String(), err)
			}
			if g.String() != f.String() || g.Evaluate(tr).Sat != r.Sat {
				t.Errorf("String %q changes the formula", f.String())
			}
		})
	}
}

func TestMatchAnchored(t *testing.T) {
	f, _ := Parse("tr.Exists(goto(office))")
	for _, tc := range []struct {
		el   string
		want bool
	}{
		{"goto(office)", true}, {"goto(office, fast)", true}, {"goto(office_2)", false},
		{"goto", false}, {"gotox(office)", false}, {"xgoto(office)", false}, {`goto("office")`, true},
	} {
		if got := f.Evaluate(trace(tc.el)).Sat; got != tc.want {
			t.Errorf("%s: %v, want %v", tc.el, got, tc.want)
		}
	}
}

func TestParseElement(t *testing.T) {
	for _, tc := range []struct{ in, name, args string }{
		{"ask(lunch)", "ask", "lunch"},
		{"goto(office, fast)", "goto", "office|fast"},
		{`say("meet me, in the lobby")`, "say", "meet me, in the lobby"},
		{`say( "x" , y )`, "say", "x|y"},
		{"PICK", "PICK", ""},
		{"pick()", "pick", ""},
		{"/SM_ROOT/PICK", "/SM_ROOT/PICK", ""},
		{"(x)", "(x)", ""},
		{"a(b(c))", "a(b(c))", ""},
		{`a("open)`, `a("open)`, ""},
	} {
		e := ParseElement(tc.in)
		if e.Name != tc.name || strings.Join(e.Args, "|") != tc.args {
			t.Errorf("%s: %q %q, want %q %q", tc.in, e.Name, e.Args, tc.name, tc.args)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tr.Exists(a", "1:12: expected ')'"},
		{"tr.Exist(a)", `1:4: unknown method "Exist"`},
		{"tr.AfterFirst(a)", "1:17: expected '.'"},
		{"tr.Exists()", "1:11: expected a pattern"},
		{"tr.Exists(a) tr.Exists(b)", "1:14: unexpected \"tr\" after the formula"},
		{"tr.Exists([)", "1:11: bad regular expression"},
		{"trace.Exists(a)", "1:1: expected tr, not or '('"},
		{"(tr.Exists(a)", "1:14: expected ')'"},
		{"tr.Exists(a) and\n  tr.Exists(\"b)", "2:13: unterminated string"},
		{"", "1:1: expected tr"},
		{"not", "1:4: expected tr"},
		{"tr.Exists(a(b,))", "1:15: expected a pattern"},
		{strings.Repeat("not ", MaxDepth+1) + "tr.Exists(a)", "nests deeper than"},
		{strings.Repeat("(", MaxDepth+1), "nests deeper than"},
		{strings.Repeat("x", MaxFormulaBytes+1), "longer than"},
	} {
		_, err := Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}
