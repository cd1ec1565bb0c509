package mcapexport

import (
	"errors"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
)

// segments queues the FSM's transitions and segments as a clip writes
// them, and each segment as a Span of the timeline.
func (x *exporter) segments() error {
	for _, t := range x.e.Transitions {
		if err := x.addJSON(clip.TopicTransitions, "edged.Transition", t.Stamp, t); err != nil {
			return err
		}
	}
	for _, s := range x.e.Segments {
		if err := x.addJSON(clip.TopicSegments, "edged.Segment", s.Start, s); err != nil {
			return err
		}
		span := Span{Start: s.Start, End: s.End, StartSec: s.StartSec, EndSec: s.EndSec, Label: s.Label,
			Source: SourceFSM, Name: s.Source, Index: s.Index}
		if err := x.addJSON(TopicTimeline, "edged.Span", s.Start, span); err != nil {
			return err
		}
	}
	return nil
}

// annotations queues every stored annotation's segments on the
// timeline, at the episode's start plus their episode seconds.
func (x *exporter) annotations(store blob.Blobs) error {
	id := x.e.Manifest.ID
	names, err := episode.Annotations(store, id)
	if err != nil {
		x.problem("annotations of %s: %v: left out", id, err)
		return nil
	}
	for _, name := range names {
		a, err := episode.GetAnnotation(store, id, name)
		if err != nil {
			x.problem("%v: left out", err)
			continue
		}
		for i, s := range a.Segments {
			start := x.at(s.StartSec)
			span := Span{Start: start, End: x.at(s.EndSec), StartSec: s.StartSec, EndSec: s.EndSec, Label: s.Subtask,
				Source: SourceAnnotation, Name: name, Index: i}
			if err := x.addJSON(TopicTimeline, "edged.Span", start, span); err != nil {
				return err
			}
		}
	}
	return nil
}

// at is the time of episode second sec.
func (x *exporter) at(sec float64) time.Time {
	return x.e.Manifest.Start.Add(time.Duration(sec * float64(time.Second)))
}

func errorsIsTooLarge(err error) bool { return errors.Is(err, mcap.ErrTooLarge) }
