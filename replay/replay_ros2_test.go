package replay_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/replay"
)

// TestReplayROS2MatchesROS1: the G1 episode replayed from its ROS 2
// MCAP bag (a directory, or the .mcap file itself) gives the same store
// as from its ROS1 bag: the same episodes, segments (labels and times),
// transitions and contact sheets, byte for byte.
func TestReplayROS2MatchesROS1(t *testing.T) {
	ros1 := sampledata.Path(t, "g1_ep29.bag")
	ros2 := sampledata.Path(t, "ros2/g1_ep29_mcap")
	cfg, err := config.Parse([]byte(`
robot_id: g1
cameras: [{topic: /cam_high/image_raw/compressed, name: high}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task_state, type: string, idle_states: [idle, done]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := pipelinetest.ReplayBag(t, cfg, filepath.Join(dir, "ros1"), ros1)
	if want.Segments == 0 || want.Sheets == 0 {
		t.Fatalf("the ROS1 replay made %d segments and %d sheets", want.Segments, want.Sheets)
	}
	t.Logf("ROS1: %d messages, %d episodes, %d segments, %d sheets", want.Messages, want.Episodes, want.Segments, want.Sheets)
	for _, in := range []string{ros2, filepath.Join(ros2, "g1_ep29_mcap_0.mcap")} {
		out := filepath.Join(dir, filepath.Base(in))
		got := pipelinetest.ReplayBag(t, cfg, out, in)
		if got.Messages != want.Messages || got.Episodes != want.Episodes || got.Segments != want.Segments || got.Sheets != want.Sheets {
			t.Errorf("%s: %d messages, %d episodes, %d segments, %d sheets; ROS1: %d, %d, %d, %d", in,
				got.Messages, got.Episodes, got.Segments, got.Sheets, want.Messages, want.Episodes, want.Segments, want.Sheets)
		}
		sameTree(t, filepath.Join(dir, "ros1", episode.EpisodesDir), filepath.Join(out, episode.EpisodesDir))
	}
}

// TestReplayIgnoresROSVersion: ros.version picks edged run's middleware;
// a replay reads each bag as its format says, so a ROS1 bag under
// ros.version 2, a ROS 2 bag under ros.version 1, and both at once
// replay as under auto.
func TestReplayIgnoresROSVersion(t *testing.T) {
	ros1 := sampledata.Path(t, "g1_ep29.bag")
	ros2 := sampledata.Path(t, "ros2/g1_ep29_mcap")
	const base = `
robot_id: g1
cameras: [{topic: /cam_high/image_raw/compressed, name: high}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task_state, type: string, idle_states: [idle, done]}]
`
	replay := func(version int, bags ...string) replay.Summary {
		t.Helper()
		cfg, err := config.Parse([]byte(base + fmt.Sprintf("ros: {version: %d}\n", version)))
		if err != nil {
			t.Fatal(err)
		}
		c := *cfg
		c.DataDir, c.HTTP.Listen, c.Uplink.Broker = t.TempDir(), "off", ""
		d, err := replay.New(&c, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := d.Run(context.Background(), bags, nil)
		if err != nil {
			t.Fatalf("ros.version %d, %v: %v", version, bags, err)
		}
		return sum
	}
	want := replay(0, ros1)
	for _, tc := range []struct {
		version int
		bags    []string
		factor  uint64 // messages: both bags hold the same episode
	}{
		{2, []string{ros1}, 1},
		{1, []string{ros2}, 1},
		{1, []string{ros1, ros2}, 2},
		{2, []string{ros1, ros2}, 2},
	} {
		got := replay(tc.version, tc.bags...)
		if got.Messages != tc.factor*want.Messages || got.Episodes != want.Episodes || got.Sheets == 0 {
			t.Errorf("ros.version %d, %d bags: %d messages, %d episodes, %d sheets; want %d, %d, >0", tc.version, len(tc.bags),
				got.Messages, got.Episodes, got.Sheets, tc.factor*want.Messages, want.Episodes)
		}
	}
}
