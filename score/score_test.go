package score

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The worked example of SCORING.md: IoU 8/14 and w 9/62.
func TestWorkedExample(t *testing.T) {
	s := Segmentation{Unit: Steps, Segments: []Segment{{40, 48, "Align Cube A with Cube B"}, {49, 61, "stack"}}}
	tt := Segmentation{Unit: Steps, Segments: []Segment{{0, 39, "approach"}, {40, 54, "robot arm lifting cube A"}}}
	if got := IoU(s.Segments[0], tt.Segments[1]); !near(got, 8.0/14) {
		t.Fatalf("IoU = %v, want 8/14", got)
	}
	sim, err := Similar(s, tt, HashedNGram())
	if err != nil {
		t.Fatal(err)
	}
	if sim.L != 62 {
		t.Fatalf("L = %v, want 62", sim.L)
	}
	var found bool
	for _, p := range sim.Pairs {
		if p.I == 0 && p.J == 1 {
			found = true
			if !near(p.W, 9.0/62) || math.Abs(p.IoU-0.571) > 0.0005 || math.Abs(p.W-0.145) > 0.0005 {
				t.Fatalf("pair = %+v, want IoU 0.571 and w 9/62 = 0.145", p)
			}
		}
	}
	if !found {
		t.Fatal("pair (s, t) missing")
	}
}

func TestSimilarityByHand(t *testing.T) {
	// Two pairs: (0,10)x(0,10) IoU 1 w 10/20, (10,20)x(10,20) IoU 1, and
	// the touching pairs with w 0 in seconds; then shift one.
	s := Segmentation{Segments: []Segment{{0, 10, "reach"}, {10, 20, "grasp"}}}
	p := Segmentation{Segments: []Segment{{0, 5, "reach"}, {5, 20, "grasp"}}}
	sim, err := Similar(s, p, HashedNGram())
	if err != nil {
		t.Fatal(err)
	}
	// pairs: (0,0) IoU .5 w 5; (0,1) IoU 5/20 w 5; (1,1) IoU 10/15 w 10.
	wantK := (0.5*5 + 0.25*5 + (10.0/15)*10) / 20
	if !near(sim.TauK, wantK) {
		t.Fatalf("tau_k = %v, want %v", sim.TauK, wantK)
	}
}

func randomSeg(r *rand.Rand, unit Unit) Segmentation {
	s := Segmentation{Unit: unit}
	t := 0.0
	labels := []string{"reach", "grasp the cup", "lift", "place it on the shelf", "release", "idle"}
	for range 1 + r.IntN(8) {
		d := float64(1 + r.IntN(20))
		if unit == Seconds {
			d = r.Float64()*10 + 0.01
		}
		s.Segments = append(s.Segments, Segment{Start: t, End: t + d, Label: labels[r.IntN(len(labels))]})
		t += d
		if unit == Steps {
			t++
		}
	}
	return s
}

func TestSymmetryAndIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		unit := Unit(i % 2)
		a, b := randomSeg(r, unit), randomSeg(r, unit)
		ab, err := Similar(a, b, HashedNGram())
		if err != nil {
			t.Fatal(err)
		}
		ba, _ := Similar(b, a, HashedNGram())
		if !near(ab.TauK, ba.TauK) || !near(ab.TauZeta, ba.TauZeta) {
			t.Fatalf("not symmetric: %v/%v vs %v/%v", ab.TauK, ab.TauZeta, ba.TauK, ba.TauZeta)
		}
		aa, _ := Similar(a, a, HashedNGram())
		if aa.TauK != 1 || aa.TauZeta != 1 {
			t.Fatalf("identical input: tau_k %v tau_zeta %v, want 1 (%+v)", aa.TauK, aa.TauZeta, a)
		}
		rep, err := Score(a, a, Options{Rate: 10})
		if err != nil {
			t.Fatal(err)
		}
		if rep.SegmentF1.F1 != 1 || rep.EndToEndF1.F1 != 1 {
			t.Fatalf("identical input: F1 %v e2e %v", rep.SegmentF1.F1, rep.EndToEndF1.F1)
		}
		if ab.TauK < 0 || ab.TauK > 1 || ab.TauZeta < -1 || ab.TauZeta > 1 {
			t.Fatalf("out of range: %+v", ab)
		}
	}
}

func TestInvalidRefused(t *testing.T) {
	ok := Segmentation{Segments: []Segment{{0, 1, "a"}}}
	for _, tc := range []struct {
		name string
		pred Segmentation
		want string
	}{
		{"empty", Segmentation{}, "no segments"},
		{"start after end", Segmentation{Segments: []Segment{{2, 1, "a"}}}, "comes after its end"},
		{"decreasing starts", Segmentation{Segments: []Segment{{2, 3, "a"}, {1, 4, "b"}}}, "non-decreasing"},
		{"nan", Segmentation{Segments: []Segment{{math.NaN(), 3, "a"}}}, "finite"},
		{"fractional step", Segmentation{Unit: Steps, Segments: []Segment{{0.5, 3, "a"}}}, "integers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Score(ok, tc.pred, Options{})
			var r *Refused
			if !errors.As(err, &r) || r.Which != "prediction" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prediction refused with %q", err, tc.want)
			}
		})
	}
}

func TestF1SnapAndMatch(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 10, "reach for the cup"}, {10, 12, "grasp cup"}, {12, 30, "lift cup"}}}
	// First start and last end are off: snapping fixes them.
	pred := Segmentation{Segments: []Segment{{1.5, 10.2, "reaching the cup"}, {10.2, 11, "close the gripper"}, {11, 27, "lifting the cup"}}}
	f, err := SegmentF1(ref, pred, MatchIoU, nil)
	if err != nil {
		t.Fatal(err)
	}
	// (0,10.2)x(0,10) IoU .98; (10.2,11)x(10,12) .4; (11,30)x(12,30) 18/19.
	if f.Matches != 2 || !near(f.Precision, 2.0/3) || !near(f.Recall, 2.0/3) || !near(f.F1, 2.0/3) {
		t.Fatalf("F1 = %+v", f)
	}
	e2e, _ := SegmentF1(ref, pred, MatchIoU, LexicalJudge{}.Agree)
	if e2e.Matches != 2 {
		t.Fatalf("end-to-end = %+v, want the 2 lexical matches", e2e)
	}
	b := RecallByDuration(ref, f)
	if b[1].Reference != 1 || b[1].Matched != 0 || b[3].Reference != 2 || b[3].Matched != 2 {
		t.Fatalf("buckets = %+v", b)
	}
}

func TestBaseline(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 2, "a"}, {2, 8, "b"}, {8, 10, "c"}}}
	base := Baseline(ref)
	if len(base.Segments) != 3 || !near(base.Segments[0].End, 10.0/3) || base.Segments[2].End != 10 {
		t.Fatalf("baseline = %+v", base)
	}
}

func TestLexicalJudge(t *testing.T) {
	j := LexicalJudge{}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"lift_and_carry", "lift the bottle and carry it", true},
		{"grasp", "grasping the bottle", true},
		{"place the cup", "placing cup on shelf", true},
		{"reach", "grasp", false},
		{"", "", true},
		{"PICK/GRASP", "grasp", true},
	} {
		if got := j.Agree(tc.a, tc.b); got != tc.want || j.Agree(tc.b, tc.a) != tc.want {
			t.Errorf("Agree(%q, %q) = %v, want %v (both ways)", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestEncoderCloseness(t *testing.T) {
	e := HashedNGram()
	same := CosineSimilarity(e.Encode("lift_and_carry"), e.Encode("lift and carry"))
	near := CosineSimilarity(e.Encode("grasp the bottle"), e.Encode("grasping bottle"))
	far := CosineSimilarity(e.Encode("grasp the bottle"), e.Encode("move to home"))
	if same < 0.999 || near < 0.5 || far > 0.2 {
		t.Fatalf("same %.3f near %.3f far %.3f", same, near, far)
	}
}

func TestUnits(t *testing.T) {
	steps := Segmentation{Unit: Steps, Segments: []Segment{{0, 29, "idle"}, {30, 64, "reach"}}}
	secs := Segmentation{Segments: []Segment{{0, 1, "idle"}, {1, 65.0 / 30, "reach"}}}
	if _, err := Score(secs, steps, Options{}); err == nil || !strings.Contains(err.Error(), "--rate") {
		t.Fatalf("mixed units without a rate: %v", err)
	}
	r, err := Score(secs, steps, Options{Rate: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.Similarity.TauK, 1) || r.SegmentF1.F1 != 1 {
		t.Fatalf("converted: %+v", r)
	}
}
