package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// nonSnakeKeys lists every object key in v (decoded JSON) that is not
// snake_case, with its path.
func nonSnakeKeys(v any, path string) []string {
	var bad []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeCase.MatchString(k) {
				bad = append(bad, path+"."+k)
			}
			bad = append(bad, nonSnakeKeys(e, path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			bad = append(bad, nonSnakeKeys(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return bad
}

var epoch = time.Date(2026, 4, 22, 7, 22, 6, 0, time.UTC)

type segSpec struct {
	label      string
	start, end float64
}

// recordEpisode writes a closed episode with segs (and one transition
// opening each) through the episode store API, into DATA/episodes, and
// returns the data dir and the episode directory.
func recordEpisode(t *testing.T, segs []segSpec) (dataDir, epDir string) {
	t.Helper()
	dataDir = t.TempDir()
	s, err := epstore.Open(filepath.Join(dataDir, "episodes"), epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin(epstore.Begin{Robot: "arm-01", Start: epoch, Instruction: "pick and place"})
	if err != nil {
		t.Fatal(err)
	}
	at := func(sec float64) time.Time { return epoch.Add(time.Duration(sec * float64(time.Second))) }
	for i, g := range segs {
		tr := episode.Transition{Seq: i, Stamp: at(g.start), Sec: g.start, Kind: episode.TransitionState,
			Source: "/task/state", To: g.label, Opens: g.label}
		if err := w.Transition(tr); err != nil {
			t.Fatal(err)
		}
		if err := w.Segment(episode.Segment{Index: i, Start: at(g.start), End: at(g.end), StartSec: g.start, EndSec: g.end,
			Label: g.label, Source: "/task/state", Kind: "string", Outcome: episode.Completed}); err != nil {
			t.Fatal(err)
		}
	}
	end := 0.0
	if len(segs) > 0 {
		end = segs[len(segs)-1].end
	}
	if err := w.Close(at(end), episode.Completed, episode.EndIdle); err != nil {
		t.Fatal(err)
	}
	return dataDir, w.Dir()
}
