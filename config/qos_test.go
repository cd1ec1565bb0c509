package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/ros2/dds"
)

// TestQoSProfilesAreTheDDSLayers: ros2.qos accepts every profile the DDS
// layer does (config refused transient_local, reliable and best_effort,
// which dds.ParseProfile accepts) and refuses the rest naming the key.
func TestQoSProfilesAreTheDDSLayers(t *testing.T) {
	cases := []struct{ profile, wantErr string }{{"bogus", "ros2.qos: topic /cam: unknown QoS profile"}}
	for _, name := range dds.ProfileNames() {
		cases = append(cases, struct{ profile, wantErr string }{name, ""})
	}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			_, err := Parse([]byte("robot_id: r\nros2: {qos: {/cam: " + tc.profile + "}}\n"))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "ros2.qos" || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want a ros2.qos error containing %q", err, tc.wantErr)
			}
		})
	}
}
