package dataset

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
	Path   string `json:"path"`   // relative to the episode directory
}

// NewVista builds the ViSTa sample of an episode; it reads only the
// directory listings of the episode's labeling sheets.
func NewVista(e *episode.Episode) Vista {
	v := Vista{Format: VistaFormat, Episode: e.Manifest.ID, Robot: e.Manifest.Robot,
		Instruction: e.Manifest.Instruction, Steps: []VistaStep{}}
	cams := cameras(filepath.Join(e.Dir, episode.LabelsDir))
	var phrases []string
	for i, s := range steps(e) {
		el := rtl.ParseElement(s.Label)
		st := VistaStep{Step: i + 1, Description: "We " + phrase(el), Action: el.Name, Args: nonNil(el.Args),
			Label: s.Label, StartSec: round6(s.StartSec), EndSec: round6(s.EndSec), Outcome: s.Outcome, Sheets: []SheetRef{}}
		for _, cam := range cams {
			rel := filepath.Join(episode.LabelsDir, cam, episode.LabelName(s.Index)+".jpg")
			if _, err := os.Stat(filepath.Join(e.Dir, rel)); err == nil {
				st.Sheets = append(st.Sheets, SheetRef{Camera: cam, Path: filepath.ToSlash(rel)})
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
	return v
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

// cameras lists the camera directories under dir, in name order.
func cameras(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
