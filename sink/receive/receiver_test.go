package receive

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
	"github.com/edged-robotics/edged/episode/store"
)

var t0 = episodetest.T0

const rid = "arm-01-20231114T221320.000Z" // an id of arm-01

func rseg(i int, label string) episode.Segment {
	return episode.Segment{Index: i, Start: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i+1) * time.Second),
		StartSec: float64(i), EndSec: float64(i + 1), Label: label, Source: "/task", Kind: "string", Outcome: episode.Completed}
}

func openRecv(t *testing.T, dir string) *Receiver {
	t.Helper()
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestReceiverKeepsSegmentIndexes: segments arriving in any order keep
// the robot's index; the same index again is a no-op with the same
// record and a conflict with another, also after a restart; a torn
// tail left by a crash is cut before the next append.
func TestReceiverKeepsSegmentIndexes(t *testing.T) {
	dir := t.TempDir()
	r := openRecv(t, dir)
	for _, i := range []int{2, 0, 1, 1} {
		if _, err := r.Segment("arm-01", rid, rseg(i, "S"+string(rune('A'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Segment("arm-01", rid, rseg(1, "FORGED")); !errors.Is(err, ErrConflict) {
		t.Errorf("another record for index 1: %v, want ErrConflict", err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, episode.ErrLocked) {
		t.Errorf("a second receiver on the same directory: %v, want ErrLocked", err)
	}
	r.Close()

	f, _ := os.OpenFile(filepath.Join(dir, rid, episode.SegmentsFile), os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{40, 0, 0, 0, 1, 2}) // a record cut by a crash
	f.Close()
	r = openRecv(t, dir)
	if _, err := r.Segment("arm-01", rid, rseg(1, "FORGED")); !errors.Is(err, ErrConflict) {
		t.Errorf("after a restart, another record for index 1: %v, want ErrConflict", err)
	}
	if _, err := r.Segment("arm-01", rid, rseg(3, "SD")); err != nil {
		t.Fatal(err)
	}
	e, err := episode.Load(dir, rid)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range e.Segments {
		got = append(got, s.Label+string(rune('0'+s.Index)))
	}
	if !reflect.DeepEqual(got, []string{"SA0", "SB1", "SC2", "SD3"}) || len(e.Problems) != 0 {
		t.Errorf("segments %v, problems %v", got, e.Problems)
	}
	if e.Manifest.Format != episode.ManifestFormat || e.Manifest.Held == nil || e.Manifest.Held.Segments != 4 {
		t.Errorf("manifest %+v", e.Manifest)
	}
}

// TestReceiverMatchesTheStore: an episode recorded by a robot's store
// and received by a Receiver read back the same (one format, one
// reader), and the receiver's manifest says when it is complete.
func TestReceiverMatchesTheStore(t *testing.T) {
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := st.Begin(store.Begin{Robot: "arm-01", Start: t0, Instruction: "stack"})
	if err != nil {
		t.Fatal(err)
	}
	start := w.Manifest()
	for i := range 3 {
		if err := w.Segment(rseg(i, "PICK")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(t0.Add(3*time.Second), episode.Completed, episode.EndIdle); err != nil {
		t.Fatal(err)
	}
	robot, err := episode.Load(st.Dir(), w.ID())
	if err != nil {
		t.Fatal(err)
	}
	end := robot.Manifest
	end.Produced = map[string]episode.CameraCounts{"cam": {Sheets: 1, LabelSheets: 0, Snippets: 1}}

	dir := t.TempDir()
	r := openRecv(t, dir)
	step := func(what string, f func() (bool, error), wantComplete bool) {
		t.Helper()
		done, err := f()
		if err != nil || done != wantComplete {
			t.Fatalf("%s: completed %v, %v; want %v", what, done, err, wantComplete)
		}
	}
	step("start", func() (bool, error) { return r.Manifest("arm-01", start) }, false)
	step("segment 2", func() (bool, error) { return r.Segment("arm-01", w.ID(), robot.Segments[2]) }, false)
	step("end", func() (bool, error) { return r.Manifest("arm-01", end) }, false)
	step("start after end", func() (bool, error) { return r.Manifest("arm-01", start) }, false)
	step("segment 0", func() (bool, error) { return r.Segment("arm-01", w.ID(), robot.Segments[0]) }, false)
	step("segment 1", func() (bool, error) { return r.Segment("arm-01", w.ID(), robot.Segments[1]) }, false)
	step("sheet", func() (bool, error) {
		return r.Sheet("arm-01", w.ID(), "/cam", "sheet-0001", false, []byte{0xff, 0xd8, 1}, []byte(`{}`))
	}, false)
	step("snippet", func() (bool, error) { return r.Snippet("arm-01", w.ID(), "/cam", 1, []byte("z")) }, true)
	step("snippet again", func() (bool, error) { return r.Snippet("arm-01", w.ID(), "/cam", 1, []byte("z")) }, false)

	other := end
	other.Outcome = episode.Aborted
	if _, err := r.Manifest("arm-01", other); !errors.Is(err, ErrConflict) {
		t.Errorf("another end manifest: %v, want ErrConflict", err)
	}
	ms, err := episode.List(dir)
	if err != nil || len(ms) != 1 {
		t.Fatalf("List: %v, %v", ms, err)
	}
	got, err := episode.Load(dir, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(spans(got), spans(robot)) {
		t.Errorf("segments differ:\n%+v\n%+v", spans(got), spans(robot))
	}
	m := got.Manifest
	if !m.Complete || !m.Closed || m.Segments != 3 || m.Instruction != "stack" || m.Outcome != episode.Completed ||
		m.Held.Cameras["cam"] != (episode.CameraCounts{Sheets: 1, Snippets: 1}) {
		t.Errorf("receiver manifest %+v held %+v", m, m.Held)
	}
	if _, err := os.Stat(filepath.Join(episode.SheetDir(got.Dir, "/cam"), "sheet-0001.jpg")); err != nil {
		t.Error(err)
	}
}

func TestReceiverRefuses(t *testing.T) {
	r := openRecv(t, t.TempDir())
	for name, f := range map[string]func() (bool, error){
		"foreign id":      func() (bool, error) { return r.Segment("arm-02", rid, rseg(0, "X")) },
		"unformed id":     func() (bool, error) { return r.Segment("arm-01", "ep1", rseg(0, "X")) },
		"negative index":  func() (bool, error) { return r.Segment("arm-01", rid, rseg(-1, "X")) },
		"sheet name":      func() (bool, error) { return r.Sheet("arm-01", rid, "/c", "../x", false, nil, nil) },
		"label as sheet":  func() (bool, error) { return r.Sheet("arm-01", rid, "/c", "label-0001", false, nil, nil) },
		"sheet as label":  func() (bool, error) { return r.Sheet("arm-01", rid, "/c", "sheet-0001", true, nil, nil) },
		"manifest robot":  func() (bool, error) { return r.Manifest("arm-01", episode.Manifest{ID: rid, Robot: "arm-02"}) },
		"snippet index":   func() (bool, error) { return r.Snippet("arm-01", rid, "/c", -2, nil) },
		"reserved name":   func() (bool, error) { return r.Segment("arm-01", "status.json", rseg(0, "X")) },
		"sink state name": func() (bool, error) { return r.Segment("arm-01", ".sink", rseg(0, "X")) },
		"record too large": func() (bool, error) {
			return r.Segment("arm-01", rid, rseg(0, strings.Repeat("x", episode.MaxRecordBytes)))
		},
	} {
		if _, err := f(); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", name, err)
		}
	}
}

// span is what scoring reads of a segment (episode/view.Segmentation).
type span struct {
	Start, End float64
	Label      string
}

func spans(e *episode.Episode) []span {
	var out []span
	for _, s := range e.Segments {
		out = append(out, span{s.StartSec, s.EndSec, s.Label})
	}
	return out
}
