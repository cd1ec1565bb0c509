package daemon

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/ros/rostest"
)

// crashedEpisode leaves in store an episode open as a SIGKILL would: two
// string-source transitions and a heartbeat on disk, its segments file
// short (the closed PICK segment's record never reached it).
func crashedEpisode(t *testing.T, store string) string {
	t.Helper()
	st, err := epstore.Open(store, epstore.Options{MinFreeBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1776842526, 0).UTC()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w, err := st.Begin(epstore.Begin{Robot: "arm-01", Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []episode.Transition{
		{Stamp: at(0), Kind: episode.TransitionState, Source: "/task_state", SrcTyp: "string", From: "idle", To: "PICK", Opens: "PICK", Path: "PICK"},
		{Stamp: at(0.6), Sec: 0.6, Kind: episode.TransitionState, Source: "/task_state", SrcTyp: "string", From: "PICK", To: "PLACE", Opens: "PLACE", Path: "PLACE"},
		{Stamp: at(1.8), Sec: 1.8, Kind: episode.TransitionHeartbeat, Source: "/task_state", SrcTyp: "string", To: "PLACE"},
	} {
		if err := w.Transition(tr); err != nil {
			t.Fatal(err)
		}
	}
	st.Close() // the writer stays open on disk: a crash
	return w.ID()
}

// TestRecoveredEpisodeIsShipped: an episode closed by crash recovery
// reaches the receiver through mosquitto like any other: closed, with
// the segments recovery rebuilt.
func TestRecoveredEpisodeIsShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and mosquitto; skipped with -short")
	}
	rostest.Require(t, "rosmaster")
	tmp := t.TempDir()
	id := crashedEpisode(t, filepath.Join(tmp, "data", "episodes"))
	m := rostest.StartMaster(t)
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut := filepath.Join(tmp, "sink")
	pipelinetest.StartSink(t, broker.URL, sinkOut)
	cfg := parseConfig(t, fmt.Sprintf(`
robot_id: arm-01
data_dir: %s
ros: {master_uri: %q, host: 127.0.0.1}
fsm: [{topic: /task_state, type: string, idle_states: [idle]}]
http: {listen: "off"}
uplink: {broker: %q}
`, filepath.Join(tmp, "data"), m.URI, broker.URL))
	_, run := runDaemon(t, cfg, Options{Version: "test"})

	// The sink's output is a store of the robot's own format: read it
	// with the same reader.
	sinkStore := episode.StoreDir(sinkOut)
	var got *episode.Episode
	rostest.WaitFor(t, 20*time.Second, "the recovered episode closed at the sink, with both segments", func() bool {
		e, err := episode.Load(sinkStore, id)
		got = e
		return err == nil && e.Manifest.Closed && len(e.Segments) == 2
	})
	want := []string{"0 PICK completed 0.6", "1 PLACE interrupted 1.8"}
	for i, sg := range got.Segments {
		if s := fmt.Sprintf("%d %s %s %g", sg.Index, sg.Label, sg.Outcome, sg.EndSec); s != want[i] {
			t.Errorf("sink: segment %d is %s, want %s", i, s, want[i])
		}
	}
	// Marked, so that the next start does not ship it again.
	rostest.WaitFor(t, 5*time.Second, "the recovered episode marked shipped", func() bool {
		e, err := episode.Load(filepath.Join(tmp, "data", "episodes"), id)
		return err == nil && e.Manifest.RecoveryShipped
	})
	run.stop(t)
}
