package score

import (
	"strings"
	"testing"
)

func TestParseSegmentation(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		unit     Unit
		n        int
		err      string
	}{
		{"wgo", `{"segments":[{"start_sec":0.0,"end_sec":7.7,"subtask":"twist open the lid"}]}`, Seconds, 1, ""},
		{"wgo extra keys", `{"episode":"e1","segments":[{"start_sec":0,"end_sec":1,"subtask":"a","confidence":0.9}]}`, Seconds, 1, ""},
		{"triples", `[[40, 48, "Align Cube A with Cube B"], [49, 61, "stack"]]`, Steps, 2, ""},
		{"integral float step", `[[40.0, 48, "a"]]`, Steps, 1, ""},
		{"empty list parses", `[]`, Steps, 0, ""},
		{"no segments key", `{"segs":[]}`, 0, 0, "no \"segments\""},
		{"missing end", `{"segments":[{"start_sec":0,"subtask":"a"}]}`, 0, 0, "end_sec is missing"},
		{"string time", `{"segments":[{"start_sec":"0","end_sec":1,"subtask":"a"}]}`, 0, 0, "segments[0]"},
		{"fractional step", `[[0.5, 1, "a"]]`, 0, 0, "integer step"},
		{"pair", `[[0, 1]]`, 0, 0, "want [start, end"},
		{"label not string", `[[0, 1, 2]]`, 0, 0, "label"},
		{"garbage", `hello`, 0, 0, "must be a JSON object"},
		{"blank", "  \n", 0, 0, "empty"},
		{"trailing", `[[0,1,"a"]] x`, 0, 0, "triples"},
		{"null segments", `{"segments":null}`, 0, 0, "no \"segments\""},
		{"long label", `[[0,1,"` + strings.Repeat("x", MaxLabelBytes+1) + `"]]`, 0, 0, "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSegmentation([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Unit != tc.unit || len(s.Segments) != tc.n {
				t.Fatalf("got %v with %d segments", s.Unit, len(s.Segments))
			}
		})
	}
}

func TestParseVerdicts(t *testing.T) {
	v, err := ParseVerdicts([]byte(`{"judge":"human","verdicts":[{"pred":"lift it","truth":"lift_and_carry","agree":true},{"pred":"x","truth":"y","agree":false}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !v.Agree("lift it", "lift_and_carry") || v.Agree("x", "y") || v.Agree("other", "y") {
		t.Fatal("verdicts not applied")
	}
	for _, bad := range []string{`{"verdicts":[]}`, `{"judge":"j","verdicts":[{"pred":"a"}]}`, `[]`, `{"judge":"j","x":1}`} {
		if _, err := ParseVerdicts([]byte(bad)); err == nil {
			t.Errorf("ParseVerdicts(%s) accepted", bad)
		}
	}
}

func FuzzParseSegmentation(f *testing.F) {
	for _, s := range []string{
		`{"segments":[{"start_sec":0.0,"end_sec":7.7,"subtask":"twist open the lid"}]}`,
		`[[40, 48, "Align Cube A with Cube B"], [49, 61, "stack"]]`,
		`[[1e300, -5, ""]]`, `{"segments":[{"start_sec":1,"end_sec":0,"subtask":"\u00ff"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSegmentation(b)
		if err != nil {
			return
		}
		if s.Validate() != nil {
			return
		}
		for _, g := range s.Segments {
			if g.End == g.Start {
				return // zero-length: IoU is 0 by definition, even against itself
			}
		}
		// Anything valid must score against itself without trouble.
		r, err := Score(s, s, Options{Rate: 30})
		if err != nil {
			t.Fatalf("valid input refused: %v", err)
		}
		if r.SegmentF1.F1 != 1 {
			t.Fatalf("self F1 = %v", r.SegmentF1.F1)
		}
	})
}

func FuzzParseVerdicts(f *testing.F) {
	f.Add([]byte(`{"judge":"human","verdicts":[{"pred":"lift it","truth":"lift_and_carry","agree":true}]}`))
	f.Add([]byte(`{"judge":"","verdicts":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVerdicts(b)
		if err == nil && v.JudgeName == "" {
			t.Fatal("accepted verdicts without a judge")
		}
	})
}
