package pipeline

import (
	"fmt"
	"slices"
	"testing"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
)

// Discovery fills only the roles the config leaves empty, within
// discovery's caps, keeping the topics already captured (a newcomer
// sorting first cannot push out the robot's camera), and not at all
// when discovery.enabled is false. ROS1 and ROS 2 share it. Every
// published camera was taken.
func TestDiscoveredCapped(t *testing.T) {
	published := []capture.TopicType{{Topic: "/wrist/image/compressed", Type: "sensor_msgs/CompressedImage"},
		{Topic: "/joint_states", Type: "sensor_msgs/JointState"}}
	for i := range 10 {
		published = append(published, capture.TopicType{Topic: fmt.Sprintf("/a/flood_%d", i), Type: "sensor_msgs/msg/CompressedImage"})
	}
	cases := []struct {
		name        string
		disc        config.Discovery
		cams, cur   []string
		wantCams    []string
		wantJoints  []string
		wantRefused uint64
	}{
		{"capped, sorted", config.Discovery{Enabled: true, MaxCameras: 2, MaxJoints: 4}, nil, nil,
			[]string{"/a/flood_0", "/a/flood_1"}, []string{"/joint_states"}, 9},
		{"the captured camera keeps its place", config.Discovery{Enabled: true, MaxCameras: 2, MaxJoints: 4}, nil,
			[]string{"/wrist/image/compressed"}, []string{"/a/flood_0", "/wrist/image/compressed"}, []string{"/joint_states"}, 9},
		{"configured cameras are not capped", config.Discovery{Enabled: true, MaxCameras: 1, MaxJoints: 1},
			[]string{"/x", "/y"}, nil, []string{"/x", "/y"}, []string{"/joint_states"}, 0},
		{"disabled", config.Discovery{Enabled: false, MaxCameras: 4, MaxJoints: 4}, nil, nil, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Pipeline{}
			cfg := &config.Config{Discovery: c.disc}
			cur := &Topology{wanted: c.cur}
			for range 3 { // rounds: a refusal is counted once
				cams, joints := p.Discovered(cfg, cur, c.cams, nil, published)
				if !slices.Equal(cams, c.wantCams) || !slices.Equal(joints, c.wantJoints) {
					t.Fatalf("cameras %v joints %v, want %v %v", cams, joints, c.wantCams, c.wantJoints)
				}
			}
			if n := p.discovery.total.Load(); n != c.wantRefused {
				t.Errorf("refused %d, want %d", n, c.wantRefused)
			}
		})
	}
}
