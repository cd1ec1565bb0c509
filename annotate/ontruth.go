package annotate

import (
	"context"
	"fmt"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/vlm"
)

// onTruth labels each FSM segment of e from its labeling sheet, per
// camera: labels alone, on the truth's boundaries. An episode whose
// robot shipped no labeling sheets (sheet.ship_label_sheets off, the
// default) has them composed from its contact sheets (composeLabels).
func (a *Annotator) onTruth(ctx context.Context, b blob.Blobs, e *episode.Episode) ([]Result, error) {
	id := e.Manifest.ID
	kind, cams, err := truthSheets(b, id)
	if err != nil {
		return nil, err
	}
	if len(cams) == 0 {
		return nil, fmt.Errorf("annotate: %s has neither labeling sheets (labels/) nor contact sheets (sheets/) for --on-truth", id)
	}
	var out []Result
	for _, l := range cams {
		c, err := readCamera(b, id, kind, l)
		if err != nil {
			return out, err
		}
		images, err := segmentImages(kind, c, e.Segments)
		if err != nil {
			return out, fmt.Errorf("annotate: labeling sheets of %s, camera %s: %w", id, c.Dir, err)
		}
		r, err := a.onTruthCamera(ctx, b, e, c, images)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// truthSheets lists the sheets on-truth labeling reads: the shipped
// labeling sheets (kind episode.LabelsDir) when the episode has any, else
// its contact sheets (episode.SheetsDir), to compose them from.
func truthSheets(b blob.Blobs, id string) (kind string, cams []listed, err error) {
	cams, err = listCameras(b, id, episode.LabelsDir, episode.LabelPrefix)
	if err != nil || len(cams) > 0 {
		return episode.LabelsDir, cams, err
	}
	cams, err = listCameras(b, id, episode.SheetsDir, episode.SheetPrefix)
	return episode.SheetsDir, cams, err
}

// segmentImages is the labeling sheet of each segment by its index: the
// shipped ones (kind episode.LabelsDir), or composed from the contact
// sheets of c.
func segmentImages(kind string, c camera, segs []episode.Segment) (map[int][]byte, error) {
	byIndex := map[int][]byte{}
	if kind == episode.LabelsDir {
		for _, s := range c.Sheets {
			if s.Meta.Segment != nil {
				byIndex[s.Meta.Segment.Index] = s.JPEG
			}
		}
		return byIndex, nil
	}
	return byIndex, composeLabels(c, segs, byIndex)
}

// composeLabels draws the labeling sheet of each of segs from the contact
// sheets of c (sheet.LabelImage, the one owner of that image) into
// byIndex.
func composeLabels(c camera, segs []episode.Segment, byIndex map[int][]byte) error {
	for _, s := range segs {
		img, err := sheet.LabelImage(c.Sheets, s.StartSec, s.EndSec, nil)
		if err != nil {
			return fmt.Errorf("segment %d: %w", s.Index, err)
		}
		byIndex[s.Index] = img
	}
	return nil
}

func (a *Annotator) onTruthCamera(ctx context.Context, b blob.Blobs, e *episode.Episode, c camera, byIndex map[int][]byte) (Result, error) {
	id, name := e.Manifest.ID, a.name(c.Dir)
	k := key(id, a.o.Client.Model(), a.o.Prompts, episode.ModeOnTruth, c.Dir, c.Sheets)
	if old, ok := existing(b, id, name, k); ok {
		return Result{Episode: id, Name: name, Annotation: old, Skipped: true}, nil
	}
	ann := episode.Annotation{Model: a.o.Client.Model(), Prompt: a.o.Prompts.Version, Mode: episode.ModeOnTruth, Camera: c.Dir, Key: k,
		Segments: []episode.AnnotatedSegment{}}
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
