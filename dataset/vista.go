package dataset

import (
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/rtl"
)

// VistaFormat names the ViSTa export's schema version.
const VistaFormat = "edged-vista/1"

// Vista is one ViSTa sample: an episode as a sequential task.
type Vista struct {
	Format      string      `json:"format"`
	Episode     string      `json:"episode"`
	Robot       string      `json:"robot"`
	Instruction string      `json:"instruction"`
	Level       int         `json:"level"` // the number of steps
	Description string      `json:"description"`
	Steps       []VistaStep `json:"steps"`
}

// VistaStep is one step with its video (the labeling sheets).
type VistaStep struct {
	Step        int        `json:"step"` // from 1
	Description string     `json:"description"`
	Action      string     `json:"action"`
	Args        []string   `json:"args"`
	Label       string     `json:"label"` // the recorded state
	StartSec    float64    `json:"start_sec"`
	EndSec      float64    `json:"end_sec"`
	Outcome     string     `json:"outcome"`
	Sheets      []SheetRef `json:"sheets"`
}

// SheetRef is one labeling sheet of a step.
type SheetRef struct {
	Camera string `json:"camera"` // the camera's directory name
	// Path is relative to the episode directory (a shipped sheet), or,
	// Composed, to the sample's own directory (ComposeVistaSheets).
	Path     string `json:"path"`
	Composed bool   `json:"composed"`
}

// NewVista builds the ViSTa sample of an episode whose files are ep
// (blob.Sub of its store, as episode.LoadBlobs read it); it reads only
// the listing of the episode's labeling sheets.
func NewVista(e *episode.Episode, ep blob.Blobs) (Vista, error) {
	v := Vista{Format: VistaFormat, Episode: e.Manifest.ID, Robot: e.Manifest.Robot,
		Instruction: e.Manifest.Instruction, Steps: []VistaStep{}}
	labels, err := listed(ep, episode.LabelsDir)
	if err != nil {
		return v, err
	}
	var phrases []string
	for i, s := range steps(e) {
		el := rtl.ParseElement(s.Label)
		st := VistaStep{Step: i + 1, Description: "We " + phrase(el), Action: el.Name, Args: nonNil(el.Args),
			Label: s.Label, StartSec: round6(s.StartSec), EndSec: round6(s.EndSec), Outcome: s.Outcome, Sheets: []SheetRef{}}
		for _, cam := range labels.cameras() {
			rel := path.Join(episode.LabelsDir, cam, episode.LabelName(s.Index)+".jpg")
			if labels.has[rel] {
				st.Sheets = append(st.Sheets, SheetRef{Camera: cam, Path: rel})
			}
		}
		v.Steps = append(v.Steps, st)
		phrases = append(phrases, "we "+phrase(el))
	}
	v.Level = len(v.Steps)
	if len(phrases) > 0 {
		d := strings.Join(phrases, ", then ") + "."
		v.Description = strings.ToUpper(d[:1]) + d[1:]
	}
	return v, nil
}

// steps are the closed segments in start order.
func steps(e *episode.Episode) []episode.Segment {
	segs := append([]episode.Segment(nil), e.Segments...)
	sort.SliceStable(segs, func(i, j int) bool {
		if !segs[i].Start.Equal(segs[j].Start) {
			return segs[i].Start.Before(segs[j].Start)
		}
		return segs[i].Index < segs[j].Index
	})
	return segs
}

// phrase says an element in words: pick(banana, closet) is "pick banana
// closet", align_pregrasp "align pregrasp", PICK "pick".
func phrase(el rtl.Element) string {
	words := []string{el.Name}
	words = append(words, el.Args...)
	s := strings.Join(words, " ")
	s = strings.NewReplacer("_", " ", "/", " ").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if strings.ToUpper(s) == s {
		s = strings.ToLower(s) // a state written as a constant
	}
	return s
}

// listing is one listing of an episode's kind of sheets (sheets/ or
// labels/): the files, by camera directory.
type listing struct {
	has   map[string]bool     // every file, relative to the episode
	byCam map[string][]string // each camera's file names, sorted
}

// listed lists the files under kind/CAMERA/ of the episode ep.
func listed(ep blob.Blobs, kind string) (listing, error) {
	l, err := ep.List(kind + "/")
	if err != nil {
		return listing{}, fmt.Errorf("export: listing %s/%s: %w", ep, kind, err)
	}
	out := listing{has: map[string]bool{}, byCam: map[string][]string{}}
	for _, f := range l {
		parts := strings.Split(f.Name, "/")
		if len(parts) != 3 || parts[1] == "" || parts[1][0] == '.' {
			continue
		}
		out.has[f.Name] = true
		out.byCam[parts[1]] = append(out.byCam[parts[1]], parts[2])
	}
	for _, names := range out.byCam {
		sort.Strings(names)
	}
	return out, nil
}

// cameras are the camera directories listed, in name order.
func (l listing) cameras() []string { return slices.Sorted(maps.Keys(l.byCam)) }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
