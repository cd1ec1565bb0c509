package score

import (
	"fmt"
	"math"
)

// Unit is the time unit of a segmentation.
type Unit uint8

const (
	// Seconds: start and end are seconds (since the episode start).
	Seconds Unit = iota
	// Steps: start and end are integer control-step indexes, inclusive.
	Steps
)

func (u Unit) String() string {
	if u == Steps {
		return "steps"
	}
	return "seconds"
}

// Segment is one subtask: [Start, End] in the segmentation's Unit.
type Segment struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Label string  `json:"label"`
}

// Segmentation is a time-ordered list of segments in one unit.
type Segmentation struct {
	Unit     Unit
	Segments []Segment
}

// InvalidError says why a segmentation cannot be scored.
type InvalidError struct {
	Index  int // offending segment, -1 for the whole segmentation
	Reason string
}

func (e *InvalidError) Error() string {
	if e.Index < 0 {
		return "invalid segmentation: " + e.Reason
	}
	return fmt.Sprintf("invalid segmentation: segment %d: %s", e.Index, e.Reason)
}

// Validate refuses what SCORING.md calls invalid (empty, a start after
// its end, starts that decrease) and what cannot be computed with (a
// time that is not finite or negative, a non-integer step). The error is
// an *InvalidError.
func (s Segmentation) Validate() error {
	if len(s.Segments) == 0 {
		return &InvalidError{Index: -1, Reason: "it has no segments"}
	}
	for i, g := range s.Segments {
		if !finite(g.Start) || !finite(g.End) {
			return &InvalidError{Index: i, Reason: "start or end is not a finite number"}
		}
		if g.Start < 0 {
			return &InvalidError{Index: i, Reason: fmt.Sprintf("start %g is negative", g.Start)}
		}
		if s.Unit == Steps && (g.Start != math.Trunc(g.Start) || g.End != math.Trunc(g.End)) {
			return &InvalidError{Index: i, Reason: fmt.Sprintf("steps must be integers, got [%g, %g]", g.Start, g.End)}
		}
		if g.Start > g.End {
			return &InvalidError{Index: i, Reason: fmt.Sprintf("start %g comes after its end %g", g.Start, g.End)}
		}
		if i > 0 && g.Start < s.Segments[i-1].Start {
			return &InvalidError{Index: i, Reason: fmt.Sprintf("start %g is before the previous start %g (starts must be non-decreasing)",
				g.Start, s.Segments[i-1].Start)}
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// ToSeconds converts a step segmentation to seconds at rate steps per
// second: step k starts at k/rate and an inclusive end step e ends at
// (e+1)/rate. A segmentation in seconds is returned unchanged.
func (s Segmentation) ToSeconds(rate float64) (Segmentation, error) {
	if s.Unit == Seconds {
		return s, nil
	}
	if !(rate > 0) || !finite(rate) {
		return Segmentation{}, fmt.Errorf("score: converting steps to seconds needs a step rate > 0 (--rate HZ), got %g", rate)
	}
	out := Segmentation{Unit: Seconds, Segments: make([]Segment, len(s.Segments))}
	for i, g := range s.Segments {
		out.Segments[i] = Segment{Start: g.Start / rate, End: (g.End + 1) / rate, Label: g.Label}
	}
	return out, nil
}

// lastEnd is the largest end of the segmentation.
func (s Segmentation) lastEnd() float64 {
	m := 0.0
	for _, g := range s.Segments {
		m = math.Max(m, g.End)
	}
	return m
}

// IoU is the temporal intersection over union of two segments, 0 when
// they do not overlap or the union is empty (SCORING.md section 1).
func IoU(a, b Segment) float64 {
	den := math.Max(a.End, b.End) - math.Min(a.Start, b.Start)
	if den <= 0 {
		return 0
	}
	return math.Max(0, math.Min(a.End, b.End)-math.Max(a.Start, b.Start)) / den
}
