package annotate

import (
	"context"
	"fmt"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/vlm"
)

// segmentSchema is the JSON schema of a segmentation answer.
var segmentSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"segments"},
	"properties": map[string]any{"segments": map[string]any{"type": "array", "items": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"start_sec", "end_sec", "subtask"},
		"properties": map[string]any{
			"start_sec": map[string]any{"type": "number"},
			"end_sec":   map[string]any{"type": "number"},
			"subtask":   map[string]any{"type": "string"},
		}}}},
}

// segment annotates every camera of e: segmentation from its contact
// sheets, then seeded relabeling of each predicted segment.
func (a *Annotator) segment(ctx context.Context, b blob.Blobs, e *episode.Episode) ([]Result, error) {
	id := e.Manifest.ID
	cams, err := listCameras(b, id, episode.SheetsDir, episode.SheetPrefix)
	if err != nil {
		return nil, err
	}
	if len(cams) == 0 {
		return nil, fmt.Errorf("annotate: %s has no contact sheets to annotate", id)
	}
	var out []Result
	for _, l := range cams {
		c, err := readCamera(b, id, episode.SheetsDir, l)
		if err != nil {
			return out, err
		}
		r, err := a.segmentCamera(ctx, b, e, c)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (a *Annotator) segmentCamera(ctx context.Context, b blob.Blobs, e *episode.Episode, c camera) (Result, error) {
	id, name := e.Manifest.ID, a.name(c.Dir)
	k := key(id, a.o.Client.Model(), a.o.Prompts, episode.ModeSegment, c.Dir, c.Sheets)
	if old, ok := existing(b, id, name, k); ok {
		return Result{Episode: id, Name: name, Annotation: old, Skipped: true}, nil
	}
	ann := episode.Annotation{Model: a.o.Client.Model(), Prompt: a.o.Prompts.Version, Mode: episode.ModeSegment, Camera: c.Dir, Key: k}
	dur := duration(e)
	req := vlm.Request{System: a.o.Prompts.Segment, Parts: segmentParts(e, dur, c), SchemaName: "segments", Schema: segmentSchema}
	raw, err := a.call(ctx, req, tokens(c.Sheets), &ann)
	if err != nil {
		return Result{}, fmt.Errorf("annotate: segmentation of %s, camera %s: %w", id, c.Dir, err)
	}
	segs, repaired, invalid := parseSegments(raw, dur)
	ann.Repaired = repaired
	if invalid != "" {
		ann.Invalid, ann.Raw, ann.Segments = invalid, keepRaw(raw), []episode.AnnotatedSegment{}
		return a.store(b, id, name, ann)
	}
	if ann.Segments, err = a.relabel(ctx, e, c, segs, &ann); err != nil {
		return Result{}, fmt.Errorf("annotate: relabeling of %s, camera %s: %w", id, c.Dir, err)
	}
	return a.store(b, id, name, ann)
}

// segmentParts is the user content of a segmentation request: the
// episode, then each sheet in time order after the map from its tiles to
// times.
func segmentParts(e *episode.Episode, dur float64, c camera) []vlm.Part {
	var head strings.Builder
	fmt.Fprintf(&head, "Episode %s, camera %s, %.2f s long (times from 0 to %.2f s).\n", e.Manifest.ID, c.Dir, dur, dur)
	if in := e.Manifest.Instruction; in != "" {
		fmt.Fprintf(&head, "Task instruction: %s\n", in)
	}
	fmt.Fprintf(&head, "%d contact sheets follow in time order.", len(c.Sheets))
	parts := []vlm.Part{{Text: head.String()}}
	for i, s := range c.Sheets {
		parts = append(parts, vlm.Part{Text: tileMap(i+1, len(c.Sheets), s.Meta)}, vlm.Part{JPEG: s.JPEG})
	}
	return append(parts, vlm.Part{Text: fmt.Sprintf("Answer with the segments of the whole episode, 0 to %.2f s.", dur)})
}

// tileMap says which time each tile of a sheet shows.
func tileMap(i, n int, m sheet.Meta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sheet %d of %d: %d columns x %d rows, tiles in reading order at", i, n, m.Columns, m.Rows)
	for j, t := range m.Tiles {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %.2f", t.Seconds)
	}
	b.WriteString(" s.")
	return b.String()
}
