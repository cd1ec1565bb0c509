package view

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// Export formats.
const (
	FormatWGO      = "wgo"
	FormatSteps    = "steps"
	FormatFoxglove = "foxglove"
)

// Export writes the episode's segments in one of the export formats:
//
//	wgo       {"segments":[{"start_sec","end_sec","subtask"}]} in episode
//	          seconds, the format VLM pipelines emit (and edged score reads)
//	steps     CSV "step,subtask,stage": one row per control step at rate
//	          Hz over the episode; subtask is the label of the segment
//	          active at the step (the latest started), stage its index;
//	          "" and -1 between segments
//	foxglove  a JSON list of Foxglove events (the body of POST
//	          /v1/events: deviceName, start, end, metadata)
func Export(w io.Writer, e *episode.Episode, format string, rate float64) error {
	switch format {
	case FormatWGO:
		type seg struct {
			Start   float64 `json:"start_sec"`
			End     float64 `json:"end_sec"`
			Subtask string  `json:"subtask"`
		}
		out := struct {
			Segments []seg `json:"segments"`
		}{Segments: []seg{}}
		for _, s := range e.Segments {
			out.Segments = append(out.Segments, seg{round6(s.StartSec), round6(s.EndSec), s.Label})
		}
		return writeJSON(w, out)
	case FormatSteps:
		return exportSteps(w, e, rate)
	case FormatFoxglove:
		type event struct {
			DeviceName string            `json:"deviceName"`
			Start      string            `json:"start"`
			End        string            `json:"end"`
			Metadata   map[string]string `json:"metadata"`
		}
		out := []event{}
		for _, s := range e.Segments {
			md := map[string]string{"subtask": s.Label, "outcome": s.Outcome, "episode": e.Manifest.ID,
				"source": s.Source, "kind": s.Kind, "index": fmt.Sprint(s.Index)}
			if s.Path != "" {
				md["path"] = s.Path
			}
			if s.GoalID != "" {
				md["goal_id"] = s.GoalID
			}
			if e.Manifest.Instruction != "" {
				md["instruction"] = e.Manifest.Instruction
			}
			out = append(out, event{DeviceName: e.Manifest.Robot, Start: s.Start.UTC().Format(time.RFC3339Nano),
				End: s.End.UTC().Format(time.RFC3339Nano), Metadata: md})
		}
		return writeJSON(w, out)
	}
	return fmt.Errorf("export: unknown format %q: want wgo, steps or foxglove", format)
}

// maxSteps caps the steps export (a day at 100 Hz is 8.6 million steps).
const maxSteps = 10_000_000

func exportSteps(w io.Writer, e *episode.Episode, rate float64) error {
	if !(rate > 0) || rate > 1e6 {
		return fmt.Errorf("export steps: --rate must be in (0, 1e6] Hz, got %g", rate)
	}
	end := 0.0
	for _, s := range e.Segments {
		end = math.Max(end, s.EndSec)
	}
	if d := e.Manifest.Duration().Seconds(); d > end {
		end = d
	}
	n := int(math.Floor(end*rate)) + 1
	if n > maxSteps {
		return fmt.Errorf("export steps: %d steps at %g Hz is more than %d: lower --rate", n, rate, maxSteps)
	}
	bw := newLineWriter(w)
	bw.printf("step,subtask,stage\n")
	for k := range n {
		t := float64(k) / rate
		label, stage := "", -1
		for i, s := range e.Segments {
			if s.StartSec <= t && (t < s.EndSec || (t == s.EndSec && i == len(e.Segments)-1)) {
				label, stage = s.Label, i
			}
		}
		bw.printf("%d,%s,%d\n", k, csvField(label), stage)
	}
	return bw.err
}

type lineWriter struct {
	w   io.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: w} }

func (l *lineWriter) printf(format string, a ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, a...)
	}
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
