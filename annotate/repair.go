package annotate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/edged-robotics/edged/episode"
)

// maxAnswerSegments caps the segments taken from one answer.
const maxAnswerSegments = 1000

// maxRaw caps the raw answer kept in an invalid annotation.
const maxRaw = 64 << 10

// answerJSON is the JSON object in an answer: models wrap it in a
// Markdown code fence now and then, which is cut (not a repair: the
// JSON is as asked).
func answerJSON(raw string) string {
	s := strings.TrimSpace(raw)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return strings.TrimSpace(s)
}

// keepRaw is the raw answer as an invalid annotation keeps it.
func keepRaw(raw string) string {
	if len(raw) > maxRaw {
		return raw[:maxRaw] + "...(cut)"
	}
	return raw
}

// parseSegments reads a segmentation answer and repairs it as the study
// did: segments with a start after their end are swapped, clipped to
// [0, dur], sorted by start, overlaps removed (a segment starts where
// the previous ends), empty ones dropped; repaired counts each fix. An
// answer that is not the JSON asked for, or holds no segment within the
// episode, is invalid: why is returned instead.
func parseSegments(raw string, dur float64) (segs []episode.AnnotatedSegment, repaired int, invalid string) {
	var a struct {
		Segments []struct {
			Start   *float64 `json:"start_sec"`
			End     *float64 `json:"end_sec"`
			Subtask string   `json:"subtask"`
		} `json:"segments"`
	}
	if err := json.Unmarshal([]byte(answerJSON(raw)), &a); err != nil {
		return nil, 0, fmt.Sprintf("the answer is not the JSON asked for: %v", err)
	}
	if len(a.Segments) > maxAnswerSegments {
		return nil, 0, fmt.Sprintf("the answer has %d segments, over %d", len(a.Segments), maxAnswerSegments)
	}
	for _, s := range a.Segments {
		if s.Start == nil || s.End == nil || !finite(*s.Start) || !finite(*s.End) {
			repaired++ // a segment without usable times is dropped
			continue
		}
		seg := episode.AnnotatedSegment{StartSec: *s.Start, EndSec: *s.End, Subtask: strings.TrimSpace(s.Subtask)}
		if seg.StartSec > seg.EndSec {
			seg.StartSec, seg.EndSec = seg.EndSec, seg.StartSec
			repaired++
		}
		if c := clip(seg, dur); c != seg {
			seg = c
			repaired++
		}
		segs = append(segs, seg)
	}
	if !slices.IsSortedFunc(segs, byStart) {
		slices.SortStableFunc(segs, byStart)
		repaired++
	}
	segs, repaired = deOverlap(segs, repaired)
	if len(segs) == 0 {
		return nil, repaired, fmt.Sprintf("no segment within the episode (0 to %.2f s)", dur)
	}
	return segs, repaired, ""
}

func byStart(a, b episode.AnnotatedSegment) int {
	return cmp.Or(cmp.Compare(a.StartSec, b.StartSec), cmp.Compare(a.EndSec, b.EndSec))
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func clip(s episode.AnnotatedSegment, dur float64) episode.AnnotatedSegment {
	s.StartSec = min(max(s.StartSec, 0), dur)
	s.EndSec = min(max(s.EndSec, 0), dur)
	return s
}

// deOverlap starts each segment where the previous one ends and drops
// those left empty.
func deOverlap(segs []episode.AnnotatedSegment, repaired int) ([]episode.AnnotatedSegment, int) {
	out := segs[:0]
	for _, s := range segs {
		if n := len(out); n > 0 && s.StartSec < out[n-1].EndSec {
			s.StartSec = out[n-1].EndSec
			repaired++
		}
		if s.EndSec <= s.StartSec {
			repaired++
			continue
		}
		out = append(out, s)
	}
	return out, repaired
}

// parseLabel reads a labeling answer: {"label": "..."}; "" when it is
// not usable.
func parseLabel(raw string) string {
	var a struct {
		Label string `json:"label"`
	}
	if json.Unmarshal([]byte(answerJSON(raw)), &a) != nil {
		return ""
	}
	return strings.TrimSpace(a.Label)
}
