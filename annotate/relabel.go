package annotate

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/vlm"
)

// The image of one segment in seeded relabeling: within one 768-px VLM
// tile (258 tokens), at the contact sheets' quality.
const (
	segmentSide    = sheet.VLMTile
	defaultQuality = 84
)

// sheetQuality is the JPEG quality of c's sheets (defaultQuality when
// their metadata does not say), that of the segment images drawn from
// them.
func sheetQuality(c camera) int {
	if len(c.Sheets) > 0 && c.Sheets[0].Meta.Quality > 0 {
		return c.Sheets[0].Meta.Quality
	}
	return defaultQuality
}

// labelSchema is the JSON schema of a labeling answer.
var labelSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"label"},
	"properties": map[string]any{"label": map[string]any{"type": "string"}},
}

// relabel asks for a label of each predicted segment, shown with its
// neighbours, seeded with the segmentation's label; an unusable answer
// keeps the seed (counted in LabelFailures).
func (a *Annotator) relabel(ctx context.Context, e *episode.Episode, c camera, segs []episode.AnnotatedSegment, ann *episode.Annotation) ([]episode.AnnotatedSegment, error) {
	q := sheetQuality(c)
	imgs := make([][]byte, len(segs))
	for i, s := range segs {
		img, err := sheet.SegmentImage(c.Sheets, s.StartSec, s.EndSec, segmentSide, q)
		if err != nil {
			return nil, err
		}
		imgs[i] = img
	}
	blank, err := sheet.BlankImage(segmentSide, q)
	if err != nil {
		return nil, err
	}
	jobs := make([]*labelJob, len(segs))
	for i := range segs {
		near := [3][]byte{blank, imgs[i], blank}
		if i > 0 {
			near[0] = imgs[i-1]
		}
		if i+1 < len(segs) {
			near[2] = imgs[i+1]
		}
		jobs[i] = &labelJob{what: fmt.Sprintf("segment %d of %d", i+1, len(segs)), est: imageTokens(near[:]...),
			req: vlm.Request{System: a.o.Prompts.Relabel, Parts: relabelParts(e, segs, i, near), SchemaName: "label", Schema: labelSchema}}
	}
	labels, err := a.labels(ctx, jobs, ann)
	if err != nil {
		return nil, err
	}
	out := append([]episode.AnnotatedSegment(nil), segs...)
	for i, l := range labels {
		if l != "" { // else the seed stands (counted in LabelFailures)
			out[i].Subtask = l
		}
	}
	return out, nil
}

func relabelParts(e *episode.Episode, segs []episode.AnnotatedSegment, i int, near [3][]byte) []vlm.Part {
	s := segs[i]
	head := fmt.Sprintf("Segment %d of %d, from %.2f s to %.2f s. Predicted label: %q.", i+1, len(segs), s.StartSec, s.EndSec, s.Subtask)
	if in := e.Manifest.Instruction; in != "" {
		head = "Task instruction: " + in + "\n" + head
	}
	span := func(j int, what string) string {
		if j < 0 || j >= len(segs) {
			return what + ": none (black image)."
		}
		return fmt.Sprintf("%s, %.2f s to %.2f s:", what, segs[j].StartSec, segs[j].EndSec)
	}
	return []vlm.Part{{Text: head},
		{Text: span(i-1, "Previous segment")}, {JPEG: near[0]},
		{Text: span(i, "The segment to name")}, {JPEG: near[1]},
		{Text: span(i+1, "Next segment")}, {JPEG: near[2]}}
}

// imageTokens is edged's token estimate of JPEG images (the token rule
// of their size).
func imageTokens(imgs ...[]byte) int64 {
	var n int64
	for _, b := range imgs {
		if cfg, err := jpeg.DecodeConfig(bytes.NewReader(b)); err == nil {
			n += int64(sheet.VLMTokens(cfg.Width, cfg.Height))
		}
	}
	return n
}
