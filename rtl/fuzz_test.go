package rtl

import (
	"strings"
	"testing"
)

// FuzzParse: any input parses or fails with a SyntaxError, never panics;
// a parsed formula's String parses to the same String and both evaluate
// alike.
func FuzzParse(f *testing.F) {
	for _, s := range []string{aliceYes, aliceNo, "tr.Exists(a)", `tr.Exists("x y"(.*, b))`,
		"!(tr.Exists(a) || tr.BeforeLast(b).AfterLast(c).Exists(d))", "tr.Exists(a", ""} {
		f.Add(s)
	}
	tr := trace("goto(office)", "ask(lunch)", "say(meet)", "a", "b(c)")
	f.Fuzz(func(t *testing.T, src string) {
		fm, err := Parse(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		g, err := Parse(fm.String())
		if err != nil {
			t.Fatalf("String %q of %q does not parse: %v", fm.String(), src, err)
		}
		if g.String() != fm.String() || g.Evaluate(tr).Sat != fm.Evaluate(tr).Sat {
			t.Fatalf("String %q of %q changes the formula", fm.String(), src)
		}
	})
}

// FuzzParseElement: any recorded state reads as an element without
// panicking; a state CheckElement accepts has a name without
// parentheses or quotes, and a map entry it refuses reads as such a
// name (the silent mismatch CheckElement exists to catch).
func FuzzParseElement(f *testing.F) {
	for _, s := range []string{"ask(lunch)", `say("meet me, in the lobby", now)`, "goto(office", "a(b(c))",
		"/SM_ROOT/PICK", "pick()", `x("a\"b")`, "(x)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		el := ParseElement(s)
		bad := strings.ContainsAny(el.Name, `()"`)
		if err := CheckElement(s); (err == nil) == bad && strings.TrimSpace(s) != "" {
			t.Fatalf("%q: element %q %q, CheckElement %v", s, el.Name, el.Args, err)
		}
	})
}
