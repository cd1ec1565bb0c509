package score

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Options configures Score. The zero value uses the built-in encoder, the
// offline lexical judge and no step rate.
type Options struct {
	// Encoder for tau_zeta. Default HashedNGram().
	Encoder Encoder
	// Judge for end-to-end F1. Default LexicalJudge{}.
	Judge Judge
	// Instruction is the episode's task instruction, for a Judge that
	// reads it (InstructedJudge). Default "": none known.
	Instruction string
	// Rate in steps per second converts step segmentations to seconds
	// when the two inputs differ in unit, and enables the duration
	// buckets for step inputs. Default 0: no conversion.
	Rate float64
}

// Refused is returned by Score when an input must not be scored.
type Refused struct {
	Which string // "truth" or "prediction"
	Err   *InvalidError
}

func (r *Refused) Error() string { return r.Which + ": " + r.Err.Error() }
func (r *Refused) Unwrap() error { return r.Err }

// Report holds every metric of SCORING.md for one pair of inputs.
type Report struct {
	Unit           string     `json:"unit"`
	TruthSegments  int        `json:"truth_segments"`
	PredSegments   int        `json:"pred_segments"`
	Similarity     Similarity `json:"similarity"`
	SegmentF1      F1         `json:"segment_f1"`
	EndToEndF1     F1         `json:"end_to_end_f1"`
	Judge          string     `json:"judge"`
	Buckets        []Bucket   `json:"recall_by_duration,omitempty"`
	BucketsNote    string     `json:"recall_by_duration_note,omitempty"`
	Baseline       F1         `json:"baseline_f1"`
	BaselineLength float64    `json:"baseline_segment_length"`
	// Matching explains SegmentF1 and EndToEndF1 segment by segment.
	Matching Matching `json:"matching"`
}

// Score validates both inputs and computes every metric. An invalid
// input returns a *Refused error naming which input and why.
func Score(truth, pred Segmentation, o Options) (*Report, error) {
	if o.Encoder == nil {
		o.Encoder = HashedNGram()
	}
	if o.Judge == nil {
		o.Judge = LexicalJudge{}
	}
	if ij, ok := o.Judge.(InstructedJudge); ok {
		o.Judge = ij.ForInstruction(o.Instruction)
	}
	for _, in := range []struct {
		which string
		s     Segmentation
	}{{"truth", truth}, {"prediction", pred}} {
		var ie *InvalidError
		if err := in.s.Validate(); errors.As(err, &ie) {
			return nil, &Refused{Which: in.which, Err: ie}
		}
	}
	var err error
	if truth.Unit != pred.Unit {
		ts, terr := truth.ToSeconds(o.Rate)
		ps, perr := pred.ToSeconds(o.Rate)
		if terr != nil || perr != nil {
			return nil, &UnitError{Truth: truth.Unit, Pred: pred.Unit, Rate: o.Rate}
		}
		truth, pred = ts, ps
	}
	r := &Report{Unit: truth.Unit.String(), TruthSegments: len(truth.Segments), PredSegments: len(pred.Segments),
		Judge: o.Judge.Name()}
	if r.Similarity, err = Similar(truth, pred, o.Encoder); err != nil {
		return nil, err
	}
	if r.SegmentF1, err = SegmentF1(truth, pred, MatchIoU, nil); err != nil {
		return nil, err
	}
	if r.EndToEndF1, err = SegmentF1(truth, pred, MatchIoU, o.Judge.Agree); err != nil {
		return nil, err
	}
	base := Baseline(truth)
	if len(base.Segments) > 0 {
		r.BaselineLength = base.Segments[0].End - base.Segments[0].Start
	}
	if r.Baseline, err = SegmentF1(truth, base, MatchIoU, nil); err != nil {
		return nil, err
	}
	r.Matching = Explain(truth, pred, r.SegmentF1, r.EndToEndF1, o.Judge)
	secs, err := truth.ToSeconds(o.Rate)
	if err != nil {
		r.BucketsNote = "truth is in steps: give a step rate (--rate HZ) for recall by duration"
	} else {
		r.Buckets = RecallByDuration(secs, r.SegmentF1)
	}
	return r, nil
}

// UnitError is returned by Score when one input is in steps and the
// other in seconds and no usable step rate converts the steps.
type UnitError struct {
	Truth, Pred Unit
	Rate        float64 // the rate given (0: none)
}

func (e *UnitError) Error() string {
	stepSide := "truth"
	if e.Pred == Steps {
		stepSide = "prediction"
	}
	msg := fmt.Sprintf("truth is in %s and prediction in %s: give the %s's step rate with --rate HZ (steps per second) "+
		"to convert its steps to seconds", describeUnit(e.Truth), describeUnit(e.Pred), stepSide)
	if e.Rate != 0 {
		msg += fmt.Sprintf(" (--rate %g is not a finite number > 0)", e.Rate)
	}
	return msg
}

func describeUnit(u Unit) string {
	if u == Steps {
		return "integer steps ([start, end, \"label\"] triples)"
	}
	return "seconds"
}

// WriteText renders the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "truth: %d segments, prediction: %d segments (%s)\n\n", r.TruthSegments, r.PredSegments, r.Unit)
	fmt.Fprintf(&b, "temporal similarity  tau_k    %.3f\n", r.Similarity.TauK)
	fmt.Fprintf(&b, "semantic similarity  tau_zeta %.3f   encoder: %s\n", r.Similarity.TauZeta, r.Similarity.Encoder)
	f1Line(&b, "segment F1 @IoU0.75", r.SegmentF1)
	f1Line(&b, "end-to-end F1", r.EndToEndF1)
	fmt.Fprintf(&b, "%21sjudge: %s\n", "", r.Judge)
	f1Line(&b, "baseline F1", r.Baseline)
	fmt.Fprintf(&b, "%21sfixed-length segments of %.3g %s (published on WGO-Bench: baseline 0.070, best VLM 0.306 / end-to-end 0.168)\n", "",
		r.BaselineLength, r.Unit)
	if r.BucketsNote != "" {
		fmt.Fprintf(&b, "\nrecall by duration: %s\n", r.BucketsNote)
	} else {
		fmt.Fprintf(&b, "\nrecall by duration\n")
		for _, k := range r.Buckets {
			rec := "   -"
			if k.Reference > 0 {
				rec = fmt.Sprintf("%.3f", k.Recall)
			}
			fmt.Fprintf(&b, "  %-7s %s  (%d of %d)\n", k.Name, rec, k.Matched, k.Reference)
		}
	}
	r.Matching.writeText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func f1Line(b *strings.Builder, name string, f F1) {
	fmt.Fprintf(b, "%-19s  %.3f   precision %.3f (%d/%d)  recall %.3f (%d/%d)\n", name, round3(f.F1),
		f.Precision, f.Matches, f.Predicted, f.Recall, f.Matches, f.Reference)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
