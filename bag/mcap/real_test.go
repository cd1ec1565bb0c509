package mcap

import (
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
)

// The sample MCAP files, with what /work/shared/data/ros2/README.md says
// they hold.
var realFiles = []struct {
	path     string
	messages uint64
	topics   map[string]int
	compress string
	indexed  bool
}{
	{"ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap", 670, map[string]int{"/cam_high/image_raw/compressed": 221,
		"/joint_states": 221, "/joint_command": 221, "/task_state": 7}, "zstd", true},
	{"ros2/rosbag2_tests/mcap_talker/talker.mcap", 20, map[string]int{"/topic": 10, "/rosout": 10}, "zstd", true},
	{"ros2/rosbag2_tests/mcap_cdr_test/cdr_test_0.mcap", 7, map[string]int{"/test_topic": 3, "/array_topic": 4}, "", true},
	{"ros2/rosbag2_tests/mcap_bag_with_topics_and_service_events/bag_with_topics_and_service_events.mcap", 10,
		map[string]int{"/test_topic1": 1, "/test_topic2": 1, "/test_service1/_service_event": 4,
			"/test_service2/_service_event": 4}, "", true},
}

func TestRealFiles(t *testing.T) {
	for _, f := range realFiles {
		t.Run(f.path, func(t *testing.T) {
			r, err := Open(sampledata.Path(t, f.path), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			info := r.Info()
			if info.Indexed != f.indexed || len(info.Problems) > 0 || info.Profile != "ros2" {
				t.Errorf("info %+v", info)
			}
			if info.Compression[f.compress] == 0 {
				t.Errorf("compression %v, want %q chunks", info.Compression, f.compress)
			}
			counts, n, last := map[string]int{}, uint64(0), uint64(0)
			it := r.Messages()
			defer it.Close()
			for it.Next() {
				m := it.Message()
				if m.LogTime < last {
					t.Fatalf("message %d at %d before %d", n, m.LogTime, last)
				}
				if m.Channel.Schema == nil || m.Channel.MessageEncoding != "cdr" || m.Channel.Schema.Encoding != "ros2msg" {
					t.Fatalf("channel %+v", m.Channel)
				}
				last = m.LogTime
				counts[m.Channel.Topic]++
				n++
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			if n != f.messages || n != info.Messages {
				t.Errorf("%d messages, statistics %d, want %d", n, info.Messages, f.messages)
			}
			for topic, want := range f.topics {
				if counts[topic] != want {
					t.Errorf("%s: %d messages, want %d", topic, counts[topic], want)
				}
			}
		})
	}
}
