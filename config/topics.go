package config

import (
	"maps"
	"slices"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// ResolveTopics rewrites every topic name in c with resolve (the ROS
// node's name resolution: relative and private names made global), so
// that everything built from c sees one name per topic. This is the one
// list of the config's topic fields (ros2.qos's keys are topics too: a
// relative key must meet the relative topic it was written for). Two
// ros2.qos keys that resolve to one topic with different profiles are
// an error naming both (cam written relative, /cam global): one map
// would keep whichever its order wrote last, from run to run.
func (c *Config) ResolveTopics(resolve func(string) string) error {
	for i := range c.Cameras {
		c.Cameras[i].Topic = resolve(c.Cameras[i].Topic)
	}
	for i := range c.Joints {
		c.Joints[i].Topic = resolve(c.Joints[i].Topic)
	}
	for i := range c.FSM {
		c.FSM[i].Topic = resolve(c.FSM[i].Topic)
	}
	c.Episode.RecordingTopic = resolve(c.Episode.RecordingTopic)
	c.Episode.InstructionTopic = resolve(c.Episode.InstructionTopic)
	// a new map: c may be a shallow copy sharing the original's
	if c.ROS2.QoS != nil {
		qos := make(map[string]string, len(c.ROS2.QoS))
		keyOf := make(map[string]string, len(c.ROS2.QoS)) // resolved -> key
		for _, key := range slices.Sorted(maps.Keys(c.ROS2.QoS)) {
			topic, profile := resolve(key), c.ROS2.QoS[key]
			if other, ok := keyOf[topic]; ok && qos[topic] != profile {
				return fielderr.New("ros2.qos", "keys %q and %q both name %s with different profiles (%s, %s): keep one",
					other, key, topic, qos[topic], profile)
			}
			qos[topic], keyOf[topic] = profile, key
		}
		c.ROS2.QoS = qos
	}
	return nil
}
