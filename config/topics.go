package config

// ResolveTopics rewrites every topic name in c with resolve (the ROS
// node's name resolution: relative and private names made global), so
// that everything built from c sees one name per topic. This is the one
// list of the config's topic fields (ros2.qos's keys are topics too: a
// relative key must meet the relative topic it was written for).
func (c *Config) ResolveTopics(resolve func(string) string) {
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
		for topic, profile := range c.ROS2.QoS {
			qos[resolve(topic)] = profile
		}
		c.ROS2.QoS = qos
	}
}
