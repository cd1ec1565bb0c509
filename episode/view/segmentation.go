package view

import (
	"fmt"
	"os"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/score"
)

// Segmentation returns the episode's segments in episode seconds for
// scoring, ordered by start.
func Segmentation(e *episode.Episode) score.Segmentation {
	out := score.Segmentation{Unit: score.Seconds}
	for _, s := range e.Segments {
		out.Segments = append(out.Segments, score.Segment{Start: s.StartSec, End: s.EndSec, Label: s.Label})
	}
	return out
}

// ReadSegmentation reads an input of edged score: an episode directory
// (its recorded segments) or a JSON file in either format of SCORING.md.
func ReadSegmentation(path string) (score.Segmentation, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		e, err := episode.Load("", path)
		if err != nil {
			return score.Segmentation{}, err
		}
		return Segmentation(e), nil
	}
	b, err := fsutil.ReadFileCapped(path, score.MaxInputBytes)
	if err != nil {
		return score.Segmentation{}, err
	}
	s, err := score.ParseSegmentation(b)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadVerdicts reads an external judge's verdicts file (--verdicts of
// edged score and edged report): at most score.MaxInputBytes of it,
// parsed by score.ParseVerdicts.
func ReadVerdicts(path string) (*score.Verdicts, error) {
	b, err := fsutil.ReadFileCapped(path, score.MaxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	v, err := score.ParseVerdicts(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
