package report

import (
	"fmt"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// storedAnnotations are the annotations edged annotate stored in the
// episode (read from o.Store) (EPISODE/annotations/), each scored by view.ScoreAnnotation as
// inspect and the fleet view score it, shown like the --annotation
// files: named by its file, with its model, prompt version, mode,
// camera and cost. One that cannot be read or scored is shown with why.
func storedAnnotations(e *episode.Episode, o Options) ([]*Annotation, []string) {
	scored, err := view.StoredAnnotations(o.Store, e, score.Options{Encoder: o.Encoder, Judge: o.Judge})
	if err != nil {
		return nil, []string{"stored annotations not read: " + err.Error()}
	}
	out := make([]*Annotation, 0, len(scored))
	for _, s := range scored {
		m := &s.Annotation
		a := &Annotation{Name: s.Name, Seg: view.AnnotationSegmentation(m), Score: s.Score, Placed: true,
			Path: fmt.Sprintf("stored: %s/%s.json · model %s · prompt %s · %s · camera %s · %d requests · %d tokens · $%.4f",
				episode.AnnotationsDir, s.Name, m.Model, m.Prompt, m.Mode, m.Camera, m.Requests, m.Usage.Prompt+m.Usage.Completion, m.CostUSD)}
		switch {
		case s.Invalid != "":
			a.Err = s.Invalid
		case s.Unscored != "":
			a.Err = s.Unscored
		}
		out = append(out, a)
	}
	return out, nil
}
