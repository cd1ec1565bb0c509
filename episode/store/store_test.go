package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
)

var t0 = episodetest.T0

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func seg(label string, a, b float64) episode.Segment {
	return episode.Segment{Start: at(a), End: at(b), StartSec: a, EndSec: b, Label: label, Path: label, Source: "/task_state",
		Kind: "string", Outcome: episode.Completed}
}

func open(t *testing.T, dir string, o Options) *Store {
	t.Helper()
	s, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	w, err := s.Begin(Begin{Robot: "arm-01", Start: t0, Instruction: "pick up the bottle"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Begin(Begin{Robot: "arm-01", Start: t0}); err == nil {
		t.Fatal("second open episode accepted")
	}
	must(t, w.Transition(episode.Transition{Stamp: at(0), Kind: episode.TransitionState, Source: "/task_state", From: "idle", To: "reach", Opens: "reach"}))
	must(t, w.Transition(episode.Transition{Stamp: at(1), Kind: episode.TransitionState, Source: "/task_state", From: "reach", To: "grasp", Opens: "grasp"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Segment(seg("grasp", 1, 2.5)))
	must(t, w.SetInstruction("pick up the green bottle"))
	must(t, w.Close(at(2.5), episode.Completed, episode.EndIdle))
	ms, err := episode.List(dir)
	if err != nil || len(ms) != 1 {
		t.Fatalf("List = %v, %v", ms, err)
	}
	e, err := episode.Load(dir, ms[0].ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	m := e.Manifest
	if !m.Closed || m.Outcome != episode.Completed || m.Instruction != "pick up the green bottle" || m.Segments != 2 ||
		m.Transitions != 2 || m.Duration() != 2500*time.Millisecond || len(e.Problems) != 0 {
		t.Fatalf("manifest = %+v problems %v", m, e.Problems)
	}
	if len(e.Segments) != 2 || e.Segments[1].Label != "grasp" || e.Segments[1].Index != 1 || !e.Segments[1].End.Equal(at(2.5)) {
		t.Fatalf("segments = %+v", e.Segments)
	}
	if _, err := episode.Load(dir, "nope"); err == nil {
		t.Fatal("unknown episode loaded")
	}
}

func TestLockedByOneProcess(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, Options{})
	if _, err := Open(dir, Options{}); !errors.Is(err, episode.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
}

func TestRecoverOpenEpisode(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Begin(Begin{Robot: "r", Start: t0})
	must(t, w.Transition(episode.Transition{Stamp: at(0), Source: "/task_state", To: "reach", Opens: "reach", Path: "reach"}))
	must(t, w.Transition(episode.Transition{Stamp: at(1), Source: "/task_state", From: "reach", To: "grasp", Opens: "grasp", Path: "grasp"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Transition(episode.Transition{Stamp: at(4), Source: "/task_state", Kind: episode.TransitionHeartbeat}))
	w.closeFiles() // crash: no Close
	s.Close()
	// A torn tail on the transitions: half a record.
	f, _ := os.OpenFile(filepath.Join(w.Dir(), episode.TransitionsFile), os.O_WRONLY|os.O_APPEND, 0)
	torn, _ := episode.AppendRecord(nil, 1, []byte(`{"seq":9,"stamp":"2026-01-01T00:00:00Z"}`)) // a record, framed for a file that has its header
	f.Write(torn[:20])
	f.Close()

	s2 := open(t, dir, Options{})
	rec := s2.Recovered()
	if len(rec) != 1 || !rec[0].ClosedOpen || rec[0].Interrupted != 1 || rec[0].TornBytes != 20 {
		t.Fatalf("recovered = %+v", rec)
	}
	e, err := episode.Load(dir, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !e.Manifest.Closed || e.Manifest.Outcome != episode.Interrupted || e.Manifest.EndReason != episode.EndRecovered || len(e.Problems) != 0 {
		t.Fatalf("manifest = %+v problems %v", e.Manifest, e.Problems)
	}
	if len(e.Segments) != 2 || e.Segments[1].Label != "grasp" || e.Segments[1].Outcome != episode.Interrupted ||
		e.Segments[1].EndSec != 4 || !e.Manifest.End.Equal(at(4)) {
		t.Fatalf("segments = %+v", e.Segments)
	}
	if _, err := os.Stat(filepath.Join(e.Dir, episode.QuarantineDir, episode.TransitionsFile+".2.torn")); err == nil {
		t.Fatal("torn tail saved under an unexpected offset")
	}
	q, _ := os.ReadDir(filepath.Join(e.Dir, episode.QuarantineDir))
	if len(q) != 1 || !strings.HasSuffix(q[0].Name(), ".torn") {
		t.Fatalf("quarantine = %v", q)
	}
}

func TestRecoverQuarantinesCorruptRecord(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, Options{})
	w, _ := s.Begin(Begin{Robot: "r", Start: t0})
	must(t, w.Segment(seg("a", 0, 1)))
	must(t, w.Segment(seg("b", 1, 2)))
	must(t, w.Segment(seg("c", 2, 3)))
	w.closeFiles()
	s.Close()
	p := filepath.Join(w.Dir(), episode.SegmentsFile)
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x55 // inside the middle record
	os.WriteFile(p, b, 0o644)
	s2 := open(t, dir, Options{})
	rec := s2.Recovered()
	if len(rec) != 1 || rec[0].Quarantined != 1 || len(rec[0].Descriptions) == 0 {
		t.Fatalf("recovered = %+v", rec)
	}
	e, _ := episode.Load(dir, w.ID())
	if len(e.Segments) != 2 || e.Segments[0].Label != "a" || e.Segments[1].Label != "c" || len(e.Problems) != 0 {
		t.Fatalf("segments = %+v problems %v", e.Segments, e.Problems)
	}
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{MaxEpisodes: 3, MaxBytes: -1})
	var ids []string
	for i := range 5 {
		w, err := s.Begin(Begin{Robot: "r", Start: at(float64(i * 10))})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.Segment(seg("a", float64(i*10), float64(i*10+1))))
		ids = append(ids, w.ID())
		must(t, w.Close(at(float64(i*10+1)), episode.Completed, episode.EndIdle))
		if i == 2 {
			must(t, s.MarkUploaded(ids[1]))
		}
	}
	// After the 4th close: 4 > 3, the uploaded ids[1] goes first; after
	// the 5th: the oldest, ids[0].
	ms, _ := episode.List(dir)
	var got []string
	for _, m := range ms {
		got = append(got, m.ID)
	}
	want := []string{ids[2], ids[3], ids[4]}
	if strings.Join(got, ",") != strings.Join(want, ",") || s.Deleted() != 2 {
		t.Fatalf("kept %v, want %v (deleted %d)", got, want, s.Deleted())
	}
	// By bytes: a tiny budget keeps only what must stay.
	s.opts.MaxBytes = 1
	must(t, s.enforceRetention())
	if ms, _ := episode.List(dir); len(ms) != 0 {
		t.Fatalf("byte budget kept %d episodes", len(ms))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
