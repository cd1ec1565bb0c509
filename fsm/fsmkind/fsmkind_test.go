package fsmkind

import "testing"

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		kind              string
		valid, sequential bool
	}{
		{String, true, true}, {Field, true, true}, {Smach, true, false}, {Actionlib, true, false},
		{"", false, true}, // a record of an older edged
		{"bogus", false, false},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			if got := Valid(tc.kind); got != tc.valid {
				t.Errorf("Valid = %v, want %v", got, tc.valid)
			}
			if got := Sequential(tc.kind); got != tc.sequential {
				t.Errorf("Sequential = %v, want %v", got, tc.sequential)
			}
		})
	}
	if got, want := Names(), "string, smach, actionlib or field"; got != want {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if All[0] != Default {
		t.Errorf("All starts with %s, not the default %s", All[0], Default)
	}
}
