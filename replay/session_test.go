package replay_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
)

// TestSessionsUnderRetention: without an FSM, sessions are episodes of
// the store (named session, cut at episode.max_duration), so retention
// removes the old ones. They used to go to DATA_DIR/sessions, outside
// the store, and grow without bound.
func TestSessionsUnderRetention(t *testing.T) {
	tmp := t.TempDir()
	bag, _ := pipelinetest.SimBag(t, tmp)
	cfg, err := config.Parse([]byte(`
robot_id: sim-01
cameras: [{topic: /camera/color/image_raw/compressed, name: top}]
episode: {max_duration: 4s, keep_episodes: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	sum := pipelinetest.ReplayBag(t, cfg, out, bag)
	if sum.Sheets < 3 {
		t.Fatalf("%d sheets: the bag is too short for three sessions of 4s", sum.Sheets)
	}
	if _, err := os.Stat(filepath.Join(out, "sessions")); !os.IsNotExist(err) {
		t.Errorf("DATA_DIR/sessions exists (%v): sessions must live in the store", err)
	}
	ms, err := episode.List(filepath.Join(out, episode.EpisodesDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("the store holds %d sessions, want keep_episodes 2: %+v", len(ms), ms)
	}
	for i, m := range ms {
		if m.Name != episode.SessionName || !m.Closed {
			t.Errorf("session %d: %+v", i, m)
		}
		sheets, _ := filepath.Glob(filepath.Join(out, episode.EpisodesDir, m.ID, "sheets", "top", "sheet-*.jpg"))
		if len(sheets) == 0 {
			t.Errorf("session %s holds no sheets", m.ID)
		}
	}
	// The newest two are kept; the first was cut at max_duration.
	// Both were cut by edged, as an episode at max_duration: interrupted
	// (a session cut there was "completed", an episode "interrupted").
	if last := ms[len(ms)-1]; last.EndReason != episode.EndShutdown || ms[0].EndReason != episode.EndMaxDuration ||
		last.Outcome != episode.Interrupted || ms[0].Outcome != episode.Interrupted ||
		ms[0].End.Sub(ms[0].Start) != 4*time.Second || !ms[1].Start.Equal(ms[0].End) {
		t.Errorf("sessions %+v", ms)
	}
}
