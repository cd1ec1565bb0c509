package pipeline

import (
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
)

// ROS2QoS parses ros2.qos (validated by Check with the same parser).
func ROS2QoS(cfg *config.Config) (map[string]dds.QoS, error) {
	out := make(map[string]dds.QoS, len(cfg.ROS2.QoS))
	for topic, profile := range cfg.ROS2.QoS {
		q, err := dds.ParseProfile(profile)
		if err != nil {
			return nil, &config.FieldError{Field: "ros2.qos", Msg: "topic " + topic + ": " + err.Error()}
		}
		out[topic] = q
	}
	return out, nil
}

// ros2Bool is std_msgs/Bool's ROS 2 name (episode.recording_topic).
const ros2Bool = "std_msgs/msg/Bool"

// fsmTopicTypes are the ROS 2 types the fsm stage reads on topic (one of
// fc.Topics()), which its subscription takes: a string source's String,
// an actionlib source's GoalStatusArray, the recording topic's Bool or
// String, the instruction's String; nil (any type) for a field or SMACH
// source and an action's goal topic, which decode any definition.
func fsmTopicTypes(fc *fsm.Config, topic string) []string {
	switch topic {
	case fc.RecordingTopic:
		return []string{ros2Bool, cdr.TypeString}
	case fc.InstructionTopic:
		return []string{cdr.TypeString}
	}
	for _, s := range fc.Sources {
		if s.Topic != topic {
			continue
		}
		switch s.Kind {
		case fsm.KindString:
			return []string{cdr.TypeString}
		case fsm.KindActionlib:
			return []string{cdr.TypeGoalStatusArray}
		}
	}
	return nil
}
