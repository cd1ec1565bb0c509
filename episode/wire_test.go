package episode

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tinylib/msgp/msgp"

	"github.com/edged-robotics/edged/uplink/wire"
)

// notOnTheWire are the manifest's fields that do not travel: a
// receiver's own and the robot's bookkeeping.
var notOnTheWire = []string{"Format", "Held", "Complete", "Cost", "EndArrived", "Uploaded", "Recovery", "RecoveryShipped", "Lacking", "Problem", "Clips"}

// TestWireRoundTrip: every field that travels survives robot -> wire
// (msgp) -> receiver, and every wire field is filled: a field added on
// one side and not mapped fails here.
func TestWireRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC)
	m := Manifest{Format: ManifestFormat, ID: "arm-20261127T100000.123Z", Robot: "arm", Name: "pick", Instruction: "pick the cup",
		Start: at, End: at.Add(time.Minute), Closed: true, Outcome: Completed, EndReason: EndIdle, Segments: 3, Transitions: 9,
		Created: at.Add(time.Second), Produced: map[string]CameraCounts{"top": {Sheets: 6, LabelSheets: 3, Snippets: 6, SheetTokens: 3096, LabelTokens: 774, LastSheet: 9},
			"wrist": {Sheets: 1, LabelSheets: 2, Snippets: 3, SheetTokens: 4, LabelTokens: 5, LastSheet: 1}},
		Verdicts: []Verdict{{Check: "grasp-first", Sat: true, Witness: "found grasp"}, {Check: "no-drop", Witness: "drop at 3"}}}
	mustFilled(t, reflect.ValueOf(m), notOnTheWire)
	w := ManifestToWire(m)
	mustFilled(t, reflect.ValueOf(*w), nil)
	b, err := w.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var back wire.Manifest
	if _, err := back.UnmarshalMsg(b); err != nil {
		t.Fatal(err)
	}
	if got := ManifestFromWire(&back); !reflect.DeepEqual(got, m) {
		t.Errorf("manifest round trip:\n got %+v\nwant %+v", got, m)
	}

	s := Segment{Index: 2, Start: at, End: at.Add(time.Second), StartSec: 1.5, EndSec: 2.5, Label: "GRASP", Path: "/SM/GRASP",
		Source: "/task", Kind: "actionlib", Outcome: Aborted, GoalID: "g1", Args: []string{"cup", "0.5"}}
	mustFilled(t, reflect.ValueOf(s), nil)
	ws := SegmentToWire(s)
	mustFilled(t, reflect.ValueOf(*ws), nil)
	sb, err := ws.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var sback wire.Segment
	if _, err := sback.UnmarshalMsg(sb); err != nil {
		t.Fatal(err)
	}
	if got := SegmentFromWire(&sback); !reflect.DeepEqual(got, s) {
		t.Errorf("segment round trip:\n got %+v\nwant %+v", got, s)
	}
}

// mustFilled fails for each field of struct v that is zero, but those
// in except.
func mustFilled(t *testing.T, v reflect.Value, except []string) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if v.Field(i).IsZero() && !slices.Contains(except, f.Name) {
			t.Errorf("%s.%s is not filled: map it (episode/wire.go) or list it as not travelling", v.Type().Name(), f.Name)
		}
	}
}

// TestWireFromOlderRobots: a manifest without verdicts and a segment
// without goal arguments (older robots) still decode, to nothing.
func TestWireFromOlderRobots(t *testing.T) {
	old := msgp.AppendMapHeader(nil, 2)
	old = msgp.AppendString(msgp.AppendString(old, "id"), "x")
	old = msgp.AppendString(msgp.AppendString(old, "robot"), "arm-01")
	var ow wire.Manifest
	if _, err := ow.UnmarshalMsg(old); err != nil || ow.ID != "x" || ManifestFromWire(&ow).Verdicts != nil {
		t.Fatalf("older manifest: %+v %v", ow, err)
	}
	olds := msgp.AppendMapHeader(nil, 1)
	olds = msgp.AppendInt64(msgp.AppendString(olds, "index"), 3)
	var sw wire.Segment
	if _, err := sw.UnmarshalMsg(olds); err != nil || sw.Index != 3 || SegmentFromWire(&sw).Args != nil {
		t.Fatalf("older segment: %+v %v", sw, err)
	}
}
