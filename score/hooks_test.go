package score

import (
	"slices"
	"testing"
)

// batchEncoder records the EncodeAll and Encode calls it gets.
type batchEncoder struct {
	batches [][]string
	singles []string
}

func (b *batchEncoder) Name() string { return "batch" }
func (b *batchEncoder) Encode(l string) []float64 {
	b.singles = append(b.singles, l)
	return HashedNGram().Encode(l)
}
func (b *batchEncoder) EncodeAll(ls []string) [][]float64 {
	b.batches = append(b.batches, ls)
	out := make([][]float64, len(ls))
	for i, l := range ls {
		out[i] = HashedNGram().Encode(l)
	}
	return out
}

// TestBatchEncoder: a BatchEncoder is asked once for the distinct labels
// of both inputs and never one by one; tau_zeta is as one by one.
func TestBatchEncoder(t *testing.T) {
	s := Segmentation{Unit: Seconds, Segments: []Segment{{0, 2, "pick cube"}, {2, 4, "place cube"}, {4, 6, "pick cube"}}}
	tt := Segmentation{Unit: Seconds, Segments: []Segment{{0, 3, "grasp cube"}, {3, 6, "place cube"}}}
	b := &batchEncoder{}
	got, err := Similar(s, tt, b)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Similar(s, tt, HashedNGram())
	if !near(got.TauZeta, want.TauZeta) {
		t.Fatalf("tau_zeta %v, want %v", got.TauZeta, want.TauZeta)
	}
	if len(b.batches) != 1 || !slices.Equal(b.batches[0], []string{"pick cube", "place cube", "grasp cube"}) || len(b.singles) != 0 {
		t.Fatalf("batches %q, singles %q", b.batches, b.singles)
	}
}

// instructed is a judge that agrees only under one instruction.
type instructed struct{ want, got string }

func (j instructed) Name() string                  { return "instructed" }
func (j instructed) Agree(_, _ string) bool        { return j.got == j.want }
func (j instructed) ForInstruction(s string) Judge { return instructed{want: j.want, got: s} }

// TestInstructedJudge: Score judges with the instruction of Options.
func TestInstructedJudge(t *testing.T) {
	s := Segmentation{Unit: Seconds, Segments: []Segment{{0, 2, "a"}, {2, 4, "b"}}}
	for _, c := range []struct {
		instruction string
		f1          float64
	}{{"stack the cubes", 1}, {"", 0}} {
		r, err := Score(s, s, Options{Judge: instructed{want: "stack the cubes"}, Instruction: c.instruction})
		if err != nil {
			t.Fatal(err)
		}
		if r.EndToEndF1.F1 != c.f1 || r.Judge != "instructed" {
			t.Fatalf("instruction %q: end-to-end F1 %v judged by %q, want %v", c.instruction, r.EndToEndF1.F1, r.Judge, c.f1)
		}
	}
}
