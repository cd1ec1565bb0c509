package config

import (
	"strings"
	"testing"
)

// discovery: an empty role is the opt-in (as before), enabled: false
// keeps it empty, and the caps have defaults and a range whose errors
// name the field.
func TestDiscoverySetting(t *testing.T) {
	cases := []struct {
		yaml    string
		want    Discovery
		wantErr string
	}{
		{"", Discovery{Enabled: true, MaxCameras: 4, MaxJoints: 4}, ""},
		{"discovery: {enabled: false}", Discovery{Enabled: false, MaxCameras: 4, MaxJoints: 4}, ""},
		{"discovery: {max_cameras: 1, max_joints: 64}", Discovery{Enabled: true, MaxCameras: 1, MaxJoints: 64}, ""},
		{"discovery: {max_cameras: 0}", Discovery{}, "discovery.max_cameras: must be in 1..64, got 0"},
		{"discovery: {max_joints: 65}", Discovery{}, "discovery.max_joints: must be in 1..64, got 65"},
		{"discovery: {cameras: true}", Discovery{}, "field cameras not found"},
	}
	for _, c := range cases {
		t.Run(c.yaml, func(t *testing.T) {
			cfg, err := Parse([]byte("robot_id: r1\n" + c.yaml + "\n"))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Discovery != c.want {
				t.Errorf("discovery %+v, want %+v", cfg.Discovery, c.want)
			}
		})
	}
}
