package sink

import (
	"errors"
	"os"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sink/receive"
	"github.com/edged-robotics/edged/uplink/wire"
)

// TestOutputIsADataDir: episodes of two robots land in OUT/episodes in
// the robot's format (inspect's List finds both), statuses in
// OUT/robots; an episode completes once, when its end and everything it
// announced arrived, whatever the order; an id of another robot is
// refused.
func TestOutputIsADataDir(t *testing.T) {
	out := t.TempDir()
	var completed []string
	s := newTestSink(t, Config{Out: out, OnComplete: func(r, ep string) { completed = append(completed, r+"/"+ep) }})
	send := func(robot, ep, kind string, seq uint64, body []byte) error {
		return s.Handle("edged/"+robot+"/"+kind, enc(t, wire.New(wire.NewID(), robot, ep, kind, seq, 1, body)))
	}
	for _, robot := range []string{"arm-01", "arm-02"} {
		ep := robot + "-20231114T221320.000Z"
		seg := func(i int64) []byte {
			b, _ := (&wire.Segment{Index: i, Start: 1e18 + i, End: 1e18 + i + 1, Label: "PICK", Outcome: "completed"}).MarshalMsg(nil)
			return b
		}
		end, _ := (&wire.Manifest{ID: ep, Robot: robot, Start: 1e18, End: 1e18 + 9, Closed: true, Segments: 2,
			Produced: []wire.CameraCount{{Camera: "cam", Sheets: 1}}}).MarshalMsg(nil)
		sheet, _ := (&wire.SheetBody{Camera: "/cam", Index: 1, Segment: -1, Name: "sheet-0001", Meta: []byte(`{}`),
			JPEG: []byte{0xff, 0xd8, 0, 0}}).MarshalMsg(nil)
		status, _ := (&wire.Status{State: "online"}).MarshalMsg(nil)
		for i, err := range []error{
			send(robot, ep, wire.KindSegment, 1, seg(1)),
			send(robot, ep, wire.KindEpisodeEnd, 1, end),
			send(robot, ep, wire.KindSegment, 0, seg(0)),
			send(robot, ep, wire.KindSheet, 1, sheet),
			send(robot, ep, wire.KindSheet, 1, sheet), // a redelivery under a new id
			send(robot, "", wire.KindStatus, 0, status),
		} {
			if err != nil {
				t.Fatalf("%s message %d: %v", robot, i, err)
			}
		}
		if _, err := os.Stat(StatusPath(out, robot)); err != nil {
			t.Error(err)
		}
	}
	foreign, _ := (&wire.Segment{Index: 5, Label: "X"}).MarshalMsg(nil)
	if err := send("arm-02", "arm-01-20231114T221320.000Z-x", wire.KindSegment, 5, foreign); !errors.Is(err, receive.ErrRefused) {
		t.Errorf("arm-02 writing an episode of arm-01: %v, want a refusal", err)
	}
	ms, err := episode.List(episode.StoreDir(out))
	if err != nil || len(ms) != 2 {
		t.Fatalf("List(%s): %+v, %v", out, ms, err)
	}
	for _, m := range ms {
		if !m.Complete || m.Held.Segments != 2 || m.Held.Cameras["cam"].Sheets != 1 {
			t.Errorf("%s: complete %v, held %+v", m.ID, m.Complete, m.Held)
		}
	}
	if len(completed) != 2 || s.Stats().Completed != 2 {
		t.Errorf("completed %v", completed)
	}
}
