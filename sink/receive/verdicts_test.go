package receive

import (
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// TestReceiverKeepsVerdicts: the verdicts of an end manifest are in the
// receiver's manifest.json; a start manifest without them (and any
// older manifest) reads as before.
func TestReceiverKeepsVerdicts(t *testing.T) {
	dir := t.TempDir()
	r := openRecv(t, dir)
	start := episode.Manifest{ID: rid, Robot: "arm-01", Start: t0}
	end := start
	end.Closed, end.End, end.Outcome = true, t0.Add(2e9), episode.Completed
	end.Verdicts = []episode.Verdict{{Check: "grasp-first", Sat: true, Witness: "found grasp"}, {Check: "no-drop"}}
	if _, err := r.Manifest("arm-01", start); err != nil {
		t.Fatal(err)
	}
	if e, err := episode.Load(dir, rid); err != nil || e.Manifest.Verdicts != nil {
		t.Fatalf("start: %+v %v", e, err)
	}
	if _, err := r.Manifest("arm-01", end); err != nil {
		t.Fatal(err)
	}
	e, err := episode.Load(dir, rid)
	if err != nil || !reflect.DeepEqual(e.Manifest.Verdicts, end.Verdicts) {
		t.Fatalf("end: verdicts %+v %v, want %+v", e.Manifest.Verdicts, err, end.Verdicts)
	}
}
