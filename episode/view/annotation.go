package view

import (
	"errors"
	"fmt"
	"io"
	"path"
	"text/tabwriter"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/score"
)

// AnnotationSegmentation returns the segments of a stored annotation
// (episode seconds, SCORING.md's format) for scoring.
func AnnotationSegmentation(a *episode.Annotation) score.Segmentation {
	out := score.Segmentation{Unit: score.Seconds}
	for _, s := range a.Segments {
		out.Segments = append(out.Segments, score.Segment{Start: s.StartSec, End: s.EndSec, Label: s.Subtask})
	}
	return out
}

// AnnotationScore is one stored annotation of an episode with its scores
// against the episode's FSM segments (package score's Report), or why it
// has none: Invalid when the annotation is at fault (edged annotate
// recorded it invalid, or score refused it as a prediction), Unscored
// when it is not (the episode's truth cannot be scored against).
type AnnotationScore struct {
	Name       string             `json:"name"`
	Annotation episode.Annotation `json:"annotation"`
	Score      *score.Report      `json:"score,omitempty"`
	Invalid    string             `json:"invalid,omitempty"`
	Unscored   string             `json:"unscored,omitempty"`
}

// ScoreAnnotation scores annotation a (named name) of episode e against
// e's FSM segments with o: the one way inspect, report and the fleet view
// score a stored annotation.
func ScoreAnnotation(e *episode.Episode, name string, a episode.Annotation, o score.Options) AnnotationScore {
	s := AnnotationScore{Name: name, Annotation: a}
	if a.Invalid != "" {
		s.Invalid = "recorded invalid: " + a.Invalid
		return s
	}
	o.Instruction = e.Manifest.Instruction // for a judge that reads it
	r, err := score.Score(Segmentation(e), AnnotationSegmentation(&a), o)
	var refused *score.Refused
	switch {
	case errors.As(err, &refused) && refused.Which == "prediction":
		s.Invalid = "not scored: " + refused.Error()
	case err != nil:
		s.Unscored = "not scored: " + err.Error()
	default:
		s.Score = r
	}
	return s
}

// EpisodeID is the id of e in its store (the last element of its Dir
// when the manifest lacks one).
func EpisodeID(e *episode.Episode) string {
	if e.Manifest.ID != "" {
		return e.Manifest.ID
	}
	return path.Base(e.Dir)
}

// StoredAnnotations reads every annotation of episode e from its store b
// (rooted at the store, as episode.LoadBlobs reads it) and scores each
// with o. One that cannot be read is listed as invalid with why.
func StoredAnnotations(b blob.Blobs, e *episode.Episode, o score.Options) ([]AnnotationScore, error) {
	id := EpisodeID(e)
	names, err := episode.Annotations(b, id)
	if err != nil {
		return nil, fmt.Errorf("annotations of %s: %w", id, err)
	}
	out := make([]AnnotationScore, 0, len(names))
	for _, n := range names {
		out = append(out, ReadAnnotation(b, e, n, o))
	}
	return out, nil
}

// ReadAnnotation reads annotation name of episode e from its store b
// and scores it with o; one that cannot be read is invalid, with why.
func ReadAnnotation(b blob.Blobs, e *episode.Episode, name string, o score.Options) AnnotationScore {
	a, err := episode.GetAnnotation(b, EpisodeID(e), name)
	if err != nil {
		return AnnotationScore{Name: name, Invalid: "not read: " + err.Error()}
	}
	return ScoreAnnotation(e, name, a, o)
}

// WriteAnnotations renders an episode's stored annotations for a
// terminal: one line each with its scores, or why it has none.
func WriteAnnotations(w io.Writer, anns []AnnotationScore) error {
	if len(anns) == 0 {
		_, err := fmt.Fprintf(w, "\nannotations  none (edged annotate writes them)\n")
		return err
	}
	fmt.Fprintf(w, "\nannotations  %d\n", len(anns))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODE\tCAMERA\tSEGMENTS\tTAU_K\tTAU_ZETA\tF1@0.75\tE2E_F1\tCOST\tTOKENS")
	for _, s := range anns {
		a := &s.Annotation
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t", clip(s.Name, 60), dash(a.Mode), clip(dash(a.Camera), 40), len(a.Segments))
		switch r := s.Score; {
		case r != nil:
			fmt.Fprintf(tw, "%.3f\t%.3f\t%.3f\t%.3f\t", r.Similarity.TauK, r.Similarity.TauZeta, r.SegmentF1.F1, r.EndToEndF1.F1)
		case s.Invalid != "":
			fmt.Fprintf(tw, "INVALID\t-\t-\t-\t")
		default:
			fmt.Fprintf(tw, "-\t-\t-\t-\t")
		}
		fmt.Fprintf(tw, "$%.4f\t%d\n", a.CostUSD, a.Usage.Prompt+a.Usage.Completion)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range anns {
		if why := s.Invalid + s.Unscored; why != "" {
			fmt.Fprintf(w, "  %s: %s\n", clip(s.Name, 60), clip(why, 300))
		}
	}
	return nil
}
