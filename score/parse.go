package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Caps on what the parsers accept.
const (
	// MaxInputBytes caps one segmentation or verdicts file.
	MaxInputBytes = 16 << 20
	// MaxSegments caps the segments of one segmentation.
	MaxSegments = 100000
	// MaxLabelBytes caps one label.
	MaxLabelBytes = 4096
	// maxStep keeps step indexes exact in a float64.
	maxStep = 1 << 53
)

// ParseSegmentation reads either JSON format of SCORING.md, telling them
// apart by the first character: an object {"segments":[{"start_sec",
// "end_sec","subtask"}]} in seconds, or a list of [start, end, "label"]
// triples of integer steps. Unknown keys in the object format are ignored
// (pipelines add their own). It checks syntax and caps only; call
// Validate for the rules a prediction must follow.
func ParseSegmentation(b []byte) (Segmentation, error) {
	if len(b) > MaxInputBytes {
		return Segmentation{}, fmt.Errorf("segmentation is %d bytes, more than the %d accepted", len(b), MaxInputBytes)
	}
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return Segmentation{}, fmt.Errorf("segmentation is empty: want {\"segments\":[...]} or [[start, end, \"label\"], ...]")
	}
	switch t[0] {
	case '{':
		return parseObject(b)
	case '[':
		return parseTriples(b)
	default:
		return Segmentation{}, fmt.Errorf("segmentation must be a JSON object {\"segments\":[...]} or a list of [start, end, \"label\"] triples, it starts with %q", t[0])
	}
}

type wgoSegment struct {
	Start   *float64 `json:"start_sec"`
	End     *float64 `json:"end_sec"`
	Subtask *string  `json:"subtask"`
}

func parseObject(b []byte) (Segmentation, error) {
	var doc struct {
		Segments *[]json.RawMessage `json:"segments"`
	}
	if err := strictUnmarshal(b, &doc); err != nil {
		return Segmentation{}, fmt.Errorf("segments object: %w", err)
	}
	if doc.Segments == nil {
		return Segmentation{}, fmt.Errorf("segments object: no \"segments\" key")
	}
	raw := *doc.Segments
	if len(raw) > MaxSegments {
		return Segmentation{}, fmt.Errorf("segments object: %d segments, more than the %d accepted", len(raw), MaxSegments)
	}
	out := Segmentation{Unit: Seconds, Segments: make([]Segment, 0, len(raw))}
	for i, r := range raw {
		var w wgoSegment
		if err := strictUnmarshal(r, &w); err != nil {
			return Segmentation{}, fmt.Errorf("segments[%d]: %w", i, err)
		}
		switch {
		case w.Start == nil:
			return Segmentation{}, fmt.Errorf("segments[%d]: start_sec is missing", i)
		case w.End == nil:
			return Segmentation{}, fmt.Errorf("segments[%d]: end_sec is missing", i)
		case w.Subtask == nil:
			return Segmentation{}, fmt.Errorf("segments[%d]: subtask is missing", i)
		case len(*w.Subtask) > MaxLabelBytes:
			return Segmentation{}, fmt.Errorf("segments[%d]: subtask is %d bytes, more than %d", i, len(*w.Subtask), MaxLabelBytes)
		}
		out.Segments = append(out.Segments, Segment{Start: *w.Start, End: *w.End, Label: *w.Subtask})
	}
	return out, nil
}

func parseTriples(b []byte) (Segmentation, error) {
	var raw []json.RawMessage
	if err := strictUnmarshal(b, &raw); err != nil {
		return Segmentation{}, fmt.Errorf("triples: %w", err)
	}
	if len(raw) > MaxSegments {
		return Segmentation{}, fmt.Errorf("triples: %d segments, more than the %d accepted", len(raw), MaxSegments)
	}
	out := Segmentation{Unit: Steps, Segments: make([]Segment, 0, len(raw))}
	for i, r := range raw {
		var tri []json.RawMessage
		if err := strictUnmarshal(r, &tri); err != nil || len(tri) != 3 {
			return Segmentation{}, fmt.Errorf("triples[%d]: want [start, end, \"label\"]", i)
		}
		start, err := parseStep(tri[0])
		if err != nil {
			return Segmentation{}, fmt.Errorf("triples[%d] start: %w", i, err)
		}
		end, err := parseStep(tri[1])
		if err != nil {
			return Segmentation{}, fmt.Errorf("triples[%d] end: %w", i, err)
		}
		var label string
		if err := strictUnmarshal(tri[2], &label); err != nil {
			return Segmentation{}, fmt.Errorf("triples[%d] label: want a string", i)
		}
		if len(label) > MaxLabelBytes {
			return Segmentation{}, fmt.Errorf("triples[%d] label: %d bytes, more than %d", i, len(label), MaxLabelBytes)
		}
		out.Segments = append(out.Segments, Segment{Start: start, End: end, Label: label})
	}
	return out, nil
}

func parseStep(r json.RawMessage) (float64, error) {
	var f float64
	if err := strictUnmarshal(r, &f); err != nil {
		return 0, fmt.Errorf("want an integer step, got %.40s", r)
	}
	if f != math.Trunc(f) || math.Abs(f) > maxStep {
		return 0, fmt.Errorf("want an integer step, got %s", r)
	}
	return f, nil
}

// strictUnmarshal decodes exactly one JSON value; trailing data is an
// error (json.Unmarshal already refuses it) and null is refused.
func strictUnmarshal(b []byte, v any) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return fmt.Errorf("null where a value is needed")
	}
	return json.Unmarshal(b, v)
}
