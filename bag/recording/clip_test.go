package recording

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// TestClipFSMRebuilt: a clip's string FSM source is rebuilt from its
// transitions (the state at the first joint message, then each
// entered); a transition that does not decode is a problem of the
// recording, not an error; the JSON channels stay of their own type.
func TestClipFSMRebuilt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "clip.mcap")
	writeClip(t, path, t0, []string{
		`{"stamp":"2026-01-01T12:00:02Z","kind":"state","source":"/task/state","source_kind":"string","from":"reach","to":"grasp"}`,
		`{not json`,
		`{"stamp":"2026-01-01T12:00:03Z","kind":"state","source":"/task/state","source_kind":"string","from":"grasp","to":"lift"}`,
		`{"stamp":"2026-01-01T12:00:03Z","kind":"state","source":"/sm","source_kind":"smach","from":"A","to":"B"}`,
	})
	rec, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if p := rec.Info().Problems; len(p) != 1 {
		t.Errorf("problems %q, want the transition that does not decode", p)
	}
	types := map[string]string{}
	for _, c := range rec.Connections() {
		types[c.Topic] = c.Type
	}
	if types["/task/state"] != msg.TypeString || types["/sm"] != "" || types[episode.ClipTopicTransitions] != "edged.Transition" {
		t.Errorf("connections %v", types)
	}
	it := rec.Messages("/task/state")
	defer it.Close()
	var got []string
	for it.Next() {
		var s msg.String
		if err := msg.DecodeString(it.Message().Data, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, it.Message().Time.Sub(t0).String()+" "+string(s.Data))
	}
	if want := []string{"1s reach", "2s grasp", "3s lift"}; it.Err() != nil || !slices.Equal(got, want) {
		t.Errorf("/task/state %q, %v; want %q", got, it.Err(), want)
	}
}

// writeClip writes an MCAP as a clip lays it out: one ROS1 joint state
// at t0+1s, then the transitions (JSON) at t0+2s.
func writeClip(t *testing.T, path string, t0 time.Time, transitions []string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := mcap.NewWriter(f, mcap.WriterOptions{Compression: mcap.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{"episode": "ep"}
	js, _ := w.AddSchema(msg.TypeJointState, "ros1msg", []byte(msg.DefJointState))
	jc, _ := w.AddChannel(js, "/joint_states", "ros1", meta)
	ts, _ := w.AddSchema("edged.Transition", "jsonschema", []byte(`{}`))
	tc, _ := w.AddChannel(ts, episode.ClipTopicTransitions, "json", meta)
	at := uint64(t0.Add(time.Second).UnixNano())
	if err := w.WriteMessage(jc, 1, at, at, msg.AppendJointState(nil, 1, t0.Add(time.Second), []string{"a"}, []float64{1}, nil, nil)); err != nil {
		t.Fatal(err)
	}
	for i, tr := range transitions {
		at := uint64(t0.Add(2 * time.Second).UnixNano())
		if err := w.WriteMessage(tc, uint32(i+1), at, at, []byte(tr)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
