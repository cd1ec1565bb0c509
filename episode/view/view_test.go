package view

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/uplink/wire"
)

var t0 = time.Unix(1776842526, 0).UTC()

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func seg(label string, a, b float64) episode.Segment {
	return episode.Segment{Start: at(a), End: at(b), StartSec: a, EndSec: b, Label: label, Path: label,
		Source: "/task_state", Kind: "string", Outcome: episode.Completed}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recorded writes a closed two-segment episode and loads it.
func recorded(t *testing.T) (string, *episode.Episode) {
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	w, err := s.Begin(store.Begin{Robot: "arm-01", Start: t0, Instruction: "pick up the bottle"})
	must(t, err)
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Segment(seg("grasp, firmly", 1, 2.5)))
	must(t, w.Close(at(2.5), episode.Completed, episode.EndIdle))
	e, err := episode.Load(dir, w.ID())
	must(t, err)
	return dir, e
}

func TestExportFormats(t *testing.T) {
	_, e := recorded(t)
	var b bytes.Buffer
	must(t, Export(&b, e, FormatWGO, 0))
	got, err := score.ParseSegmentation(b.Bytes())
	if err != nil || len(got.Segments) != 2 || got.Segments[1].Label != "grasp, firmly" || got.Segments[1].End != 2.5 {
		t.Fatalf("wgo export does not round-trip: %v %+v\n%s", err, got, b.String())
	}
	b.Reset()
	must(t, Export(&b, e, FormatSteps, 2))
	want := "step,subtask,stage\n0,reach,0\n1,reach,0\n2,\"grasp, firmly\",1\n3,\"grasp, firmly\",1\n4,\"grasp, firmly\",1\n5,\"grasp, firmly\",1\n"
	if b.String() != want {
		t.Fatalf("steps:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	must(t, Export(&b, e, FormatFoxglove, 0))
	var ev []struct {
		DeviceName, Start, End string
		Metadata               map[string]string
	}
	if err := json.Unmarshal(b.Bytes(), &ev); err != nil || len(ev) != 2 || ev[0].DeviceName != "arm-01" ||
		ev[0].Start != "2026-04-22T07:22:06Z" || ev[0].End != "2026-04-22T07:22:07Z" || ev[1].Metadata["subtask"] != "grasp, firmly" {
		t.Fatalf("foxglove: %v %+v", err, ev)
	}
	if err := Export(&b, e, "csv", 0); err == nil {
		t.Fatal("unknown format accepted")
	}
	if err := Export(&b, e, FormatSteps, 0); err == nil {
		t.Fatal("steps without a rate accepted")
	}
}

func TestTables(t *testing.T) {
	dir, e := recorded(t)
	var b bytes.Buffer
	ms, _ := episode.List(dir)
	must(t, WriteList(&b, ms))
	if !strings.Contains(b.String(), e.Manifest.ID) || !strings.Contains(b.String(), "2.500s") || !strings.Contains(b.String(), "completed") {
		t.Fatalf("list:\n%s", b.String())
	}
	b.Reset()
	e.Manifest.Verdicts = []episode.Verdict{{Check: "grasp-first", Sat: true, Witness: "found grasp"}, {Check: "no-drop", Witness: "found drop"}}
	must(t, WriteTimeline(&b, e))
	for _, want := range []string{"pick up the bottle", "grasp, firmly", "   1.000s", "   2.500s", "1.500s", "cost         ",
		"check        SAT   grasp-first: found grasp", "check        UNSAT no-drop: found drop"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("timeline lacks %q:\n%s", want, b.String())
		}
	}
}

func TestReadSegmentation(t *testing.T) {
	_, e := recorded(t)
	s, err := ReadSegmentation(e.Dir)
	if err != nil || len(s.Segments) != 2 {
		t.Fatalf("episode dir: %v %+v", err, s)
	}
	f := filepath.Join(t.TempDir(), "p.json")
	must(t, os.WriteFile(f, []byte(`[[0, 9, "reach"]]`), 0o644))
	if s, err := ReadSegmentation(f); err != nil || s.Unit != score.Steps {
		t.Fatalf("triples file: %v %+v", err, s)
	}
}

// TestReadVerdicts: a verdicts file is read capped (one larger than
// score.MaxInputBytes is refused before it is read whole), and what is
// wrong with one says which file.
func TestReadVerdicts(t *testing.T) {
	dir := t.TempDir()
	good := `{"judge":"gpt","verdicts":[{"pred":"lift it","truth":"lift","agree":true}]}`
	huge := strings.Repeat(" ", score.MaxInputBytes) + good
	for _, tc := range []struct {
		file, body, err string
	}{
		{"verdicts.json", good, ""},
		{"huge.json", huge, "larger than"},
		{"bad.json", `{"judge":`, "bad.json"},
		{"missing.json", "", "no such file"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if tc.body != "" {
				must(t, os.WriteFile(p, []byte(tc.body), 0o644))
			}
			v, err := ReadVerdicts(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !v.Agree("lift it", "lift") {
				t.Fatalf("%v %v", v, err)
			}
		})
	}
}

func TestSegmentation(t *testing.T) {
	_, e := recorded(t)
	sg := Segmentation(e)
	want := []score.Segment{{Start: 0, End: 1, Label: "reach"}, {Start: 1, End: 2.5, Label: "grasp, firmly"}}
	if sg.Unit != score.Seconds || len(sg.Segments) != 2 || sg.Segments[0] != want[0] || sg.Segments[1] != want[1] {
		t.Fatalf("segmentation = %+v, want %+v in seconds", sg, want)
	}
}

// What a receiver lacks shows on both sides: on the robot from its last
// repair request (recorded in the store), at a receiver from the files.
func TestTablesShowWhatIsLacking(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{})
	must(t, err)
	w, err := s.Begin(store.Begin{Robot: "arm-01", Start: t0})
	must(t, err)
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Close(at(1), episode.Completed, episode.EndIdle))
	must(t, s.MarkLacking(w.ID(), []string{"segment/1", "sheet/top/2"}, false, t0))
	s.Close()
	ms, _ := episode.List(dir)
	var b bytes.Buffer
	must(t, WriteList(&b, ms))
	if !strings.Contains(b.String(), "no, receiver lacks 2") {
		t.Fatalf("robot's list:\n%s", b.String())
	}
	e, err := episode.Load(dir, w.ID())
	must(t, err)
	b.Reset()
	must(t, WriteTimeline(&b, e))
	if !strings.Contains(b.String(), "uploaded     no: the receiver lacks 2 pieces") || !strings.Contains(b.String(), "segment/1 sheet/top/2") {
		t.Fatalf("robot's timeline:\n%s", b.String())
	}

	// A receiver's view of a closed episode missing segment 1 of 2.
	e.Manifest.Held, e.Manifest.EndArrived = &episode.Held{Segments: 1}, t0
	e.Lack = &episode.Lack{Closed: true, Since: t0, Pieces: []wire.Piece{{Kind: wire.KindSegment, Index: 1}}}
	b.Reset()
	must(t, WriteTimeline(&b, e))
	if !strings.Contains(b.String(), "incomplete   lacks 1 pieces, its end arrived 2026-04-22T07:22:06Z: segment/1") {
		t.Fatalf("receiver's timeline:\n%s", b.String())
	}
	b.Reset()
	must(t, WriteList(&b, []episode.Manifest{e.Manifest}))
	if !strings.Contains(b.String(), "incomplete since 2026-04-22 07:22:06") {
		t.Fatalf("receiver's list:\n%s", b.String())
	}
}
