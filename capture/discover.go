package capture

import (
	"slices"
	"strings"

	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// TopicType is a (topic, type) pair as the master's getPublishedTopics
// returns them.
type TopicType struct {
	Topic string
	Type  string
}

// Discover picks camera and joint topics from the master's published
// topics, for when no cameras are configured:
//   - cameras: sensor_msgs/Image and sensor_msgs/CompressedImage topics,
//     except depth images (a "depth" name segment or compressedDepth)
//     which are not views of the scene; when both BASE (Image) and
//     BASE/compressed (CompressedImage) exist, only the compressed one is
//     taken: it is the same camera at a fraction of the bytes;
//   - joints: sensor_msgs/JointState topics.
//
// ROS 2 names (sensor_msgs/msg/Image) count as their ROS1 twins. Both
// lists are sorted.
func Discover(topics []TopicType) (cameras, joints []string) {
	compressed := map[string]bool{}
	for _, t := range topics {
		if cdr.ROS1Name(t.Type) == msg.TypeCompressedImage {
			compressed[t.Topic] = true
		}
	}
	for _, t := range topics {
		switch cdr.ROS1Name(t.Type) {
		case msg.TypeImage:
			if !isDepth(t.Topic) && !compressed[t.Topic+"/compressed"] {
				cameras = append(cameras, t.Topic)
			}
		case msg.TypeCompressedImage:
			if !isDepth(t.Topic) {
				cameras = append(cameras, t.Topic)
			}
		case msg.TypeJointState:
			joints = append(joints, t.Topic)
		}
	}
	slices.Sort(cameras)
	slices.Sort(joints)
	return slices.Compact(cameras), slices.Compact(joints)
}

func isDepth(topic string) bool {
	for _, seg := range strings.Split(strings.ToLower(topic), "/") {
		if seg == "compresseddepth" || strings.Contains(seg, "depth") {
			return true
		}
	}
	return false
}
