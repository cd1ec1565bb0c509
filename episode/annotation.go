package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/edged-robotics/edged/blob"
)

// AnnotationsDir holds an episode's cloud annotations, one JSON file
// each (ANNOTATIONS/NAME.json), written by edged annotate through
// PutAnnotation and read by inspect, report and score (Annotations,
// GetAnnotation).
const AnnotationsDir = "annotations"

// MaxAnnotationBytes caps one annotation file (its raw answer kept when
// invalid included) before it is read.
const MaxAnnotationBytes = 4 << 20

// maxAnnotations caps how many annotations of one episode are listed.
const maxAnnotations = 256

// The modes of an annotation.
const (
	// ModeSegment: segmentation from the contact sheets, then seeded
	// relabeling of each predicted segment (the full task).
	ModeSegment = "segment"
	// ModeOnTruth: one label per FSM segment from the robot's labeling
	// sheets (labels alone, on the truth's boundaries).
	ModeOnTruth = "on_truth"
)

// AnnotatedSegment is one segment in the format VLM pipelines emit
// (SCORING.md): seconds from the episode's start and a subtask label.
type AnnotatedSegment struct {
	StartSec float64 `json:"start_sec"`
	EndSec   float64 `json:"end_sec"`
	Subtask  string  `json:"subtask"`
}

// TokenUsage is the token count the API reported.
type TokenUsage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
}

// Annotation is one cloud annotation of an episode: its segments (the
// SCORING.md input format: the file is itself a valid `edged score`
// input) and how they were made.
type Annotation struct {
	// Segments, sorted, clipped to the episode and without overlap;
	// empty when Invalid says why.
	Segments []AnnotatedSegment `json:"segments"`
	Model    string             `json:"model"`
	// Prompt is the prompt set's version (edged annotate --print-prompts).
	Prompt string `json:"prompt_version"`
	Mode   string `json:"mode"`
	Camera string `json:"camera"`
	// Key identifies what it was computed from (episode, model, prompt
	// version, mode, camera and the sheets' content): an annotation with
	// the same key is not computed again.
	Key string `json:"key"`
	// Invalid says why the answer could not be used; Raw keeps it.
	Invalid string `json:"invalid,omitempty"`
	Raw     string `json:"raw,omitempty"`
	// Repaired counts what was fixed in the answer (sorted, clipped,
	// de-overlapped segments).
	Repaired int `json:"repaired,omitempty"`
	// LabelFailures counts labels not had from the model: an unusable
	// labeling answer (relabeling keeps the segmentation's label; on the
	// truth's boundaries the label stays empty) or a segment without a
	// labeling sheet.
	LabelFailures   int        `json:"label_failures,omitempty"`
	Requests        int        `json:"requests"`
	Usage           TokenUsage `json:"usage"`
	EstimatedTokens int64      `json:"estimated_tokens"`
	CostUSD         float64    `json:"cost_usd"`
	LatencyMS       int64      `json:"latency_ms"`
	Created         time.Time  `json:"created"`
}

// AnnotationName is the file name stem of an annotation by model with
// prompt version prompt, in mode, of camera: every character outside
// [A-Za-z0-9._-] becomes '_' (CameraDir's rule), so one model and prompt
// give one name per episode, mode and camera.
func AnnotationName(model, prompt, mode, camera string) string {
	n := CameraDir(model) + "@" + CameraDir(prompt)
	if mode != "" && mode != ModeSegment {
		n += "." + CameraDir(mode)
	}
	if camera != "" {
		n += "." + CameraDir(camera)
	}
	return n
}

func annotationBlob(id, name string) string {
	return id + "/" + AnnotationsDir + "/" + name + ".json"
}

// PutAnnotation writes annotation a of episode id, named name, into
// store b (rooted at the store's episodes/), replacing one of that name.
func PutAnnotation(b blob.Blobs, id, name string, a Annotation) error {
	if name == "" || strings.ContainsAny(name, "/\\") || blob.CheckName(name) != nil {
		return fmt.Errorf("episode: annotation name %q refused: use AnnotationName", name)
	}
	if a.Segments == nil { // [] not null: the file stays a SCORING.md input, refused by score only for having none
		a.Segments = []AnnotatedSegment{}
	}
	body, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("episode: encode annotation: %w", err)
	}
	if len(body) > MaxAnnotationBytes {
		return fmt.Errorf("episode: annotation %s of %s is %d bytes, over %d: drop the raw answer", name, id, len(body), MaxAnnotationBytes)
	}
	if _, err := b.Put(annotationBlob(id, name), body, blob.Cond{}); err != nil {
		return fmt.Errorf("episode: write annotation %s of %s: %w", name, id, err)
	}
	return nil
}

// GetAnnotation reads annotation name of episode id from store b; an
// error wrapping fs.ErrNotExist when there is none.
func GetAnnotation(b blob.Blobs, id, name string) (Annotation, error) {
	var a Annotation
	body, _, err := b.Get(annotationBlob(id, name), MaxAnnotationBytes)
	if err != nil {
		return a, fmt.Errorf("episode: annotation %s of %s: %w", name, id, err)
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("episode: annotation %s of %s is not valid JSON (%v); delete it to annotate again", name, id, err)
	}
	return a, nil
}

// Annotations names the annotations of episode id in store b, sorted
// (at most maxAnnotations).
func Annotations(b blob.Blobs, id string) ([]string, error) {
	l, err := b.List(id + "/" + AnnotationsDir + "/")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range l {
		base := path.Base(f.Name)
		if strings.HasSuffix(base, ".json") && path.Dir(f.Name) == id+"/"+AnnotationsDir {
			names = append(names, strings.TrimSuffix(base, ".json"))
		}
	}
	sort.Strings(names)
	if len(names) > maxAnnotations {
		names = names[:maxAnnotations]
	}
	return names, nil
}
