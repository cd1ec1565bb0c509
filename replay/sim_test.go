package replay_test

import (
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/internal/pipelinetest"
)

// TestReplayRecordsTheSimEpisode: edged replay alone (no master) records
// the generated episode exactly: record times are the clock.
func TestReplayRecordsTheSimEpisode(t *testing.T) {
	tmp := t.TempDir()
	bag, truthPath := pipelinetest.SimBag(t, tmp)
	cfg, err := config.Parse([]byte(`
robot_id: sim-01
cameras: [{topic: /camera/color/image_raw/compressed, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	sum := pipelinetest.ReplayBag(t, cfg, out, bag)
	if sum.Messages != 2205 || sum.Episodes != 1 || sum.Segments != 6 || sum.Sheets != 2 {
		t.Fatalf("summary %+v", sum)
	}
	pipelinetest.CheckRecorded(t, filepath.Join(out, "episodes"), truthPath)
	// Joints were discovered from the bag.
	var joints bool
	for _, ts := range sum.Topics {
		joints = joints || (ts.Topic == "/joint_states" && ts.Events == 1750)
	}
	if !joints {
		t.Errorf("joint topic not discovered from the bag: %+v", sum.Topics)
	}
}
