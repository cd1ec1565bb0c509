package ship

import (
	"reflect"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/sink"
	"github.com/edged-robotics/edged/uplink/wire"
	"github.com/tinylib/msgp/msgp"
)

// TestVerdictsTravel: a manifest's verdicts reach the sink as they left
// the robot, and a manifest of an older robot (no verdicts key) still
// decodes.
func TestVerdictsTravel(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	m := episode.Manifest{Format: episode.ManifestFormat, ID: "arm-01-20250301T120000.000Z", Robot: "arm-01",
		Start: t0, End: t0.Add(time.Minute), Closed: true, Created: t0,
		Verdicts: []episode.Verdict{{Check: "alice-yes", Sat: true, Witness: "found say(meet)"}, {Check: "no-pick"}}}
	b, err := ManifestBody(m).MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var w wire.Manifest
	if _, err := w.UnmarshalMsg(b); err != nil {
		t.Fatal(err)
	}
	if got := sink.ManifestOf(&w); !reflect.DeepEqual(got.Verdicts, m.Verdicts) {
		t.Fatalf("verdicts at the sink %+v, want %+v", got.Verdicts, m.Verdicts)
	}
	old := msgp.AppendMapHeader(nil, 2)
	old = msgp.AppendString(msgp.AppendString(old, "id"), "x")
	old = msgp.AppendString(msgp.AppendString(old, "robot"), "arm-01")
	var ow wire.Manifest
	if _, err := ow.UnmarshalMsg(old); err != nil || ow.ID != "x" || ow.Verdicts != nil {
		t.Fatalf("older manifest: %+v %v", ow, err)
	}
}

// TestGoalArgumentsTravel: an actionlib segment's goal arguments reach
// the sink, and a segment of an older robot (no args key) still decodes.
func TestGoalArgumentsTravel(t *testing.T) {
	s := episode.Segment{Index: 2, Label: "pick", Kind: "actionlib", GoalID: "g1", Args: []string{"cup", "table"}}
	b, err := SegmentBody(s).MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var w wire.Segment
	if _, err := w.UnmarshalMsg(b); err != nil {
		t.Fatal(err)
	}
	if got := sink.SegmentOf(&w); !reflect.DeepEqual(got.Args, s.Args) || got.GoalID != "g1" {
		t.Fatalf("segment at the sink %+v, want args %q", got, s.Args)
	}
	old := msgp.AppendMapHeader(nil, 1)
	old = msgp.AppendInt64(msgp.AppendString(old, "index"), 3)
	var ow wire.Segment
	if _, err := ow.UnmarshalMsg(old); err != nil || ow.Index != 3 || ow.Args != nil {
		t.Fatalf("older segment: %+v %v", ow, err)
	}
}
