package pipeline

import (
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ros"
)

// TestResolveTopicsQoSKeysMeet: two ros2.qos keys that resolve to one
// topic (cam written relative, /cam global) with different profiles are
// refused, naming both; the same profile twice is fine. Resolving them
// into one map kept whichever the map's order wrote last, a different
// profile from run to run, without a word.
func TestResolveTopicsQoSKeysMeet(t *testing.T) {
	for _, tc := range []struct {
		qos  map[string]string
		want string // "" accepted
	}{
		{map[string]string{"cam": "sensor_data", "/cam": "default"}, `ros2.qos: keys "/cam" and "cam" both name /cam`},
		{map[string]string{"cam": "sensor_data", "/cam": "sensor_data"}, ""},
	} {
		cfg, err := config.Parse([]byte("robot_id: r\n"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ROS2.QoS = tc.qos
		_, err = ResolveTopics(cfg, ros.Args{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("qos %v: %v, want accepted", tc.qos, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("qos %v: error %v, want one containing %q", tc.qos, err, tc.want)
		}
	}
}
