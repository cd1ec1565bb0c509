package annotate

import (
	"context"
	"fmt"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/vlm"
)

// onTruth labels each FSM segment of e from the robot's labeling sheet
// of it, per camera: labels alone, on the truth's boundaries.
func (a *Annotator) onTruth(ctx context.Context, b blob.Blobs, e *episode.Episode) ([]Result, error) {
	id := e.Manifest.ID
	cams, err := listCameras(b, id, episode.LabelsDir, episode.LabelPrefix)
	if err != nil {
		return nil, err
	}
	if len(cams) == 0 {
		return nil, fmt.Errorf("annotate: %s has no labeling sheets (labels/) for --on-truth", id)
	}
	var out []Result
	for _, l := range cams {
		c, err := readCamera(b, id, episode.LabelsDir, l)
		if err != nil {
			return out, err
		}
		r, err := a.onTruthCamera(ctx, b, e, c)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (a *Annotator) onTruthCamera(ctx context.Context, b blob.Blobs, e *episode.Episode, c camera) (Result, error) {
	id, name := e.Manifest.ID, a.name(c.Dir)
	k := key(id, a.o.Client.Model(), a.o.Prompts, episode.ModeOnTruth, c.Dir, c.Sheets)
	if old, ok := existing(b, id, name, k); ok {
		return Result{Episode: id, Name: name, Annotation: old, Skipped: true}, nil
	}
	ann := episode.Annotation{Model: a.o.Client.Model(), Prompt: a.o.Prompts.Version, Mode: episode.ModeOnTruth, Camera: c.Dir, Key: k,
		Segments: []episode.AnnotatedSegment{}}
	byIndex := map[int][]byte{}
	for _, s := range c.Sheets {
		if s.Meta.Segment != nil {
			byIndex[s.Meta.Segment.Index] = s.JPEG
		}
	}
	jobs := make([]*labelJob, len(e.Segments))
	for i, seg := range e.Segments {
		img, ok := byIndex[seg.Index]
		if !ok {
			continue // no labeling sheet of it: no label (a LabelFailure)
		}
		head := fmt.Sprintf("Segment %d of %d, from %.2f s to %.2f s.", i+1, len(e.Segments), seg.StartSec, seg.EndSec)
		if in := e.Manifest.Instruction; in != "" {
			head = "Task instruction: " + in + "\n" + head
		}
		jobs[i] = &labelJob{what: fmt.Sprintf("segment %d", seg.Index), est: imageTokens(img),
			req: vlm.Request{System: a.o.Prompts.OnTruth, Parts: []vlm.Part{{Text: head}, {JPEG: img}}, SchemaName: "label", Schema: labelSchema}}
	}
	labels, err := a.labels(ctx, jobs, &ann)
	if err != nil {
		return Result{}, fmt.Errorf("annotate: labeling %s, camera %s: %w", id, c.Dir, err)
	}
	for i, seg := range e.Segments {
		ann.Segments = append(ann.Segments, episode.AnnotatedSegment{StartSec: seg.StartSec, EndSec: seg.EndSec, Subtask: labels[i]})
	}
	return a.store(b, id, name, ann)
}
