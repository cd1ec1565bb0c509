package replay_test

import (
	"testing"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/internal/cliptest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/sampledata"
)

// TestReplayROS2WritesROS2Clips: a clip of a ROS 2 recording replayed
// (the G1 episode's rosbag2 MCAP bag, the FSM entering grasp) carries
// its camera and joints as ROS 2 messages (ros2msg schemas, cdr) that
// decode with their schemas, whatever ros.version says, as edged run's
// under ros.version 2 would; its ROS1 bag gives ROS1 clips.
func TestReplayROS2WritesROS2Clips(t *testing.T) {
	const camera = "/cam_high/image_raw/compressed"
	for _, tc := range []struct {
		bag, version, want string
	}{
		{"ros2/g1_ep29_mcap", "0", "ros2msg cdr"},
		{"ros2/g1_ep29_mcap", "1", "ros2msg cdr"},
		{"g1_ep29.bag", "2", "ros1msg ros1"},
	} {
		t.Run(tc.bag+"/ros.version:"+tc.version, func(t *testing.T) {
			cfg, err := config.Parse([]byte(`
robot_id: g1
ros: {version: ` + tc.version + `}
cameras: [{topic: ` + camera + `, name: high}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task_state, type: string, idle_states: [idle, done]}]
clips: {enabled: true, pre: 2s, post: 1s, on_states: [grasp]}
`))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			pipelinetest.ReplayBag(t, cfg, out, sampledata.Path(t, tc.bag))
			path := pipelinetest.OnlyClip(t, out)
			c := cliptest.Read(t, path, camera)
			if len(c.Stamps) < 30 || c.PerTopic["/joint_states"] < 30 {
				t.Fatalf("clip: %d frames, messages per topic %v", len(c.Stamps), c.PerTopic)
			}
			for _, topic := range []string{camera, "/joint_states"} {
				if c.Encodings[topic] != tc.want {
					t.Errorf("%s: %q, want %q (all: %v)", topic, c.Encodings[topic], tc.want, c.Encodings)
				}
			}
			if c.Encodings[clip.TopicTransitions] != "jsonschema json" {
				t.Errorf("transitions: %q", c.Encodings[clip.TopicTransitions])
			}
			pipelinetest.CheckClipWithMcapCore(t, path, camera, c.PerTopic)
		})
	}
}
