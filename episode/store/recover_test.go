package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// crashWith writes an open episode with the given transitions and
// segments and leaves it as a crash would, then reopens the store.
func crashWith(t *testing.T, trans []episode.Transition, segs []episode.Segment) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Begin(Begin{Robot: "r", Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trans {
		must(t, w.Transition(tr))
	}
	for _, sg := range segs {
		must(t, w.Segment(sg))
	}
	must(t, w.sync())
	w.closeFiles() // crash: no Close
	s.Close()
	return open(t, dir, Options{}), w.ID()
}

func timelineOf(e *episode.Episode) string {
	var b []string
	for _, s := range e.Segments {
		b = append(b, fmt.Sprintf("%s[%g-%g]%s", s.Label, s.StartSec, s.EndSec, s.Outcome))
	}
	return strings.Join(b, " ")
}

// Recovery rebuilds segments from the transitions: for a string source
// a state ends where the next transition of its source starts, also when
// the segments file lost the record of the closed one.
func TestRecoverRebuildsSegmentsFromTransitions(t *testing.T) {
	str := func(sec float64, from, to string) episode.Transition {
		tr := episode.Transition{Stamp: at(sec), Sec: sec, Kind: episode.TransitionState, Source: "/task_state", SrcTyp: "string", From: from, To: to}
		if to != "idle" {
			tr.Opens, tr.Path = to, to
		}
		return tr
	}
	beat := episode.Transition{Stamp: at(1.8), Sec: 1.8, Kind: episode.TransitionHeartbeat, Source: "/task_state", SrcTyp: "string", To: "PLACE"}
	smach := func(sec float64, path string) episode.Transition {
		return episode.Transition{Stamp: at(sec), Kind: episode.TransitionState, Source: "/sm", SrcTyp: "smach", Opens: path, Path: "/SM/" + path}
	}
	for _, tc := range []struct {
		name  string
		trans []episode.Transition
		segs  []episode.Segment
		want  string
	}{
		{"short segments file", []episode.Transition{str(0, "idle", "PICK"), str(0.6, "PICK", "PLACE"), beat}, nil,
			"PICK[0-0.6]completed PLACE[0.6-1.8]interrupted"},
		{"segments file has the closed one", []episode.Transition{str(0, "idle", "PICK"), str(0.6, "PICK", "PLACE"), beat},
			[]episode.Segment{seg("PICK", 0, 0.6)}, "PICK[0-0.6]completed PLACE[0.6-1.8]interrupted"},
		{"back to idle closes", []episode.Transition{str(0, "idle", "PICK"), str(0.6, "PICK", "PLACE"), str(1.2, "PLACE", "idle"), beat},
			nil, "PICK[0-0.6]completed PLACE[0.6-1.2]completed"},
		{"smach leaves may overlap", []episode.Transition{smach(0, "A"), smach(0.5, "B")}, nil,
			"A[0-0.5]interrupted B[0.5-0.5]interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, id := crashWith(t, tc.trans, tc.segs)
			e, err := episode.Load(s.Dir(), id)
			if err != nil {
				t.Fatal(err)
			}
			if got := timelineOf(e); got != tc.want {
				t.Fatalf("recovered %s, want %s (recovery %+v)", got, tc.want, s.Recovered())
			}
			for i := 1; i < len(e.Segments); i++ {
				a, b := e.Segments[i-1], e.Segments[i]
				if a.Source == "/task_state" && b.Source == a.Source && a.End.After(b.Start) {
					t.Fatalf("overlapping string segments %s and %s", timelineOf(e), b.Label)
				}
			}
		})
	}
}

// An actionlib goal open at a crash is recovered with its arguments,
// given by its opening transition or by a goal transition after it (the
// goal topic's message came after the status): its trace element stays
// pick(cup, table), not pick (issue 14).
func TestRecoverKeepsGoalArguments(t *testing.T) {
	open := func(sec float64, id string, args ...string) episode.Transition {
		return episode.Transition{Stamp: at(sec), Sec: sec, Kind: episode.TransitionState, Source: "/pick/status", SrcTyp: "actionlib",
			To: id + ":ACTIVE", Opens: "pick", Path: "pick", GoalID: id, Args: args}
	}
	late := episode.Transition{Stamp: at(0.7), Sec: 0.7, Kind: episode.TransitionGoal, Source: "/pick/status", SrcTyp: "actionlib",
		Path: "pick", GoalID: "g2", Args: []string{"bottle", "shelf"}}
	other := late
	other.GoalID, other.Args = "g3", []string{"plate"} // a goal never opened: nothing
	s, id := crashWith(t, []episode.Transition{open(0, "g1", "cup", "table"), open(0.5, "g2"), late, other}, nil)
	e, err := episode.Load(s.Dir(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := timelineOf(e); got != "pick[0-0.7]interrupted pick[0.5-0.7]interrupted" {
		t.Fatalf("recovered %s", got)
	}
	for i, want := range []string{"cup table", "bottle shelf"} {
		if got := strings.Join(e.Segments[i].Args, " "); got != want || e.Segments[i].GoalID != fmt.Sprintf("g%d", i+1) {
			t.Errorf("segment %d %+v: args %q, want %q", i, e.Segments[i], got, want)
		}
	}
}

// A corrupt manifest.json does not hide an episode whose records are
// intact: readers rebuild it from the records and say so, Open
// quarantines the bad one and closes the episode, retention counts it.
func TestCorruptManifestIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Begin(Begin{Robot: "arm-01", Start: at(0)})
	must(t, w.Transition(episode.Transition{Stamp: at(0), Kind: episode.TransitionState, Source: "/task_state", SrcTyp: "string", To: "PICK", Opens: "PICK", Path: "PICK"}))
	must(t, w.Transition(episode.Transition{Stamp: at(1), Sec: 1, Kind: episode.TransitionState, Source: "/task_state", SrcTyp: "string", From: "PICK", To: "PLACE", Opens: "PLACE", Path: "PLACE"}))
	must(t, w.Segment(seg("PICK", 0, 1)))
	must(t, w.Segment(seg("PLACE", 1, 2)))
	must(t, w.Close(at(2), episode.Completed, episode.EndIdle))
	s.Close()
	must(t, os.WriteFile(filepath.Join(w.Dir(), episode.ManifestFile), []byte(`{"format":1,"id":`), 0o644))
	if err := os.Mkdir(filepath.Join(dir, "empty-leftover"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Readers (inspect) see it and its problem, and write nothing.
	ms, err := episode.List(dir)
	if err != nil || len(ms) != 1 || ms[0].ID != w.ID() || ms[0].Problem == "" || ms[0].Robot != "arm-01" || !ms[0].Start.Equal(at(0)) {
		t.Fatalf("List = %+v, %v", ms, err)
	}
	e, err := episode.Load(dir, w.ID())
	if err != nil || len(e.Segments) != 2 || len(e.Problems) != 1 || !strings.Contains(e.Problems[0], "corrupt") {
		t.Fatalf("Load = %+v, %v", e, err)
	}

	// The store recovers it.
	s2 := open(t, dir, Options{MaxEpisodes: 1})
	rec := s2.Recovered()
	if len(rec) != 1 || !strings.Contains(strings.Join(rec[0].Descriptions, ";"), "quarantine/manifest.json.corrupt") {
		t.Fatalf("recovered = %+v", rec)
	}
	if b, err := os.ReadFile(filepath.Join(w.Dir(), episode.QuarantineDir, episode.ManifestFile+".corrupt")); err != nil || string(b) != `{"format":1,"id":` {
		t.Fatalf("quarantined manifest = %q, %v", b, err)
	}
	e, err = episode.Load(dir, w.ID())
	if err != nil || !e.Manifest.Closed || e.Manifest.EndReason != episode.EndRecovered || len(e.Problems) != 0 ||
		timelineOf(e) != "PICK[0-1]completed PLACE[1-2]completed" || !e.Manifest.End.Equal(at(2)) {
		t.Fatalf("after recovery: %+v %s, %v", e, timelineOf(e), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "empty-leftover")); !os.IsNotExist(err) {
		t.Fatalf("empty episode directory left behind: %v", err)
	}
	// Retention sees it: a newer episode pushes it out (keep 1).
	w2, _ := s2.Begin(Begin{Robot: "arm-01", Start: at(10)})
	must(t, w2.Close(at(11), episode.Completed, episode.EndIdle))
	if ms, _ := episode.List(dir); len(ms) != 1 || ms[0].ID != w2.ID() {
		t.Fatalf("after retention: %+v", ms)
	}
}
