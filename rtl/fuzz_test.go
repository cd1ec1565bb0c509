package rtl

import "testing"

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
