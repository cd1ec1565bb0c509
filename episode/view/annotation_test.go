package view

import (
	"bytes"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/score"
)

// TestStoredAnnotationsScored: each stored annotation is scored against
// the episode's segments, or says why not: recorded invalid, refused by
// score as a prediction (the annotation's fault: Invalid), or the truth
// cannot be scored (Unscored); the table shows both.
func TestStoredAnnotationsScored(t *testing.T) {
	dir, e := recorded(t) // reach [0, 1], grasp [1, 2.5]
	noTruth := *e
	noTruth.Segments = nil
	exact := []episode.AnnotatedSegment{{StartSec: 0, EndSec: 1, Subtask: "reach"}, {StartSec: 1, EndSec: 2.5, Subtask: "grasp firmly"}}
	for _, tc := range []struct {
		name              string
		e                 *episode.Episode
		a                 episode.Annotation
		f1                float64 // when scored
		invalid, unscored string
	}{
		{"exact", e, episode.Annotation{Segments: exact}, 1, "", ""},
		{"recorded invalid", e, episode.Annotation{Invalid: "not JSON", Raw: "?"}, 0, "recorded invalid: not JSON", ""},
		{"refused: empty", e, episode.Annotation{}, 0, "not scored: prediction: invalid segmentation: it has no segments", ""},
		{"no truth", &noTruth, episode.Annotation{Segments: exact}, 0, "", "not scored: truth: invalid segmentation: it has no segments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ScoreAnnotation(tc.e, "m@v1", tc.a, score.Options{})
			if s.Invalid != tc.invalid || s.Unscored != tc.unscored || (s.Score == nil) != (tc.invalid+tc.unscored != "") {
				t.Fatalf("%+v", s)
			}
			if s.Score != nil && s.Score.SegmentF1.F1 != tc.f1 {
				t.Errorf("F1 %v, want %v", s.Score.SegmentF1.F1, tc.f1)
			}
		})
	}

	b := blob.Dir{Root: dir}
	must(t, episode.PutAnnotation(b, e.Manifest.ID, "good@v1", episode.Annotation{Model: "good", Mode: episode.ModeSegment, Segments: exact}))
	must(t, episode.PutAnnotation(b, e.Manifest.ID, "bad@v1", episode.Annotation{Model: "bad", Invalid: "not JSON"}))
	anns, err := StoredAnnotations(b, e, score.Options{})
	must(t, err)
	var out bytes.Buffer
	must(t, WriteAnnotations(&out, anns))
	for _, w := range []string{"annotations  2", "good@v1", "1.000", "bad@v1", "INVALID", "bad@v1: recorded invalid: not JSON"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the table lacks %q:\n%s", w, out.String())
		}
	}
}
