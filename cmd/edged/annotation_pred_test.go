package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/score"
)

// TestAnnotationFileIsScoreInput: a stored annotation file, every field
// of its bookkeeping filled, is itself a SCORING.md input, as
// episode.Annotation says: score.ParseSegmentation reads its segments,
// and `edged score --pred FILE` scores it; an invalid one (no segments)
// is refused by score for having none, not as a malformed file.
func TestAnnotationFileIsScoreInput(t *testing.T) {
	dataDir, epDir := recordEpisode(t, demoSegs)
	full := annotation("gpt", 0.01, demoSegs)
	full.Repaired, full.LabelFailures, full.LatencyMS, full.Created = 2, 1, 1234, epoch.Add(time.Hour)
	invalid := annotation("gem", 0.005, nil)
	invalid.Invalid, invalid.Raw = "the answer is not JSON", `I see {"segments": a robot`
	for _, tc := range []struct {
		name    string
		ann     episode.Annotation
		wantErr string // of edged score; "": scored
	}{
		{"full", full, ""},
		{"invalid", invalid, "it has no segments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := blob.Dir{Root: filepath.Join(dataDir, episode.EpisodesDir)}
			name := annotationName(tc.ann)
			must(t, episode.PutAnnotation(b, filepath.Base(epDir), name, tc.ann))
			file := filepath.Join(epDir, episode.AnnotationsDir, name+".json")
			body, err := os.ReadFile(file)
			must(t, err)
			seg, err := score.ParseSegmentation(body)
			if err != nil {
				t.Fatalf("score.ParseSegmentation refuses the stored annotation: %v\n%s", err, body)
			}
			if len(seg.Segments) != len(tc.ann.Segments) || seg.Unit != score.Seconds {
				t.Fatalf("parsed %+v from\n%s", seg, body)
			}
			for i, s := range tc.ann.Segments {
				if g := seg.Segments[i]; g.Start != s.StartSec || g.End != s.EndSec || g.Label != s.Subtask {
					t.Errorf("segment %d: parsed %+v, stored %+v", i, g, s)
				}
			}
			out := edged(t, tc.wantErr == "", "score", "--truth", epDir, "--pred", file)
			if tc.wantErr == "" && !strings.Contains(out, "segment F1 @IoU0.75  1.000") || !strings.Contains(out, tc.wantErr) {
				t.Errorf("edged score --pred %s:\n%s", name, out)
			}
		})
	}
}
