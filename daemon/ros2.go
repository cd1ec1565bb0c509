package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
)

// rosVersion decides ros.version 0 (auto) from ROS_VERSION: 2 when a
// ROS 2 environment is sourced, else 1.
func rosVersion(cfg *config.Config) int {
	if v := cfg.ROS.Version; v != 0 {
		return v
	}
	if os.Getenv("ROS_VERSION") == "2" {
		return 2
	}
	return 1
}

// ros2Config is the participant's config: ros2.domain_id, else
// $ROS_DOMAIN_ID (dds.DomainFromEnv: a bad value is an error), else 0.
func ros2Config(cfg *config.Config) (dds.Config, error) {
	if d := cfg.ROS2.DomainID; d != nil {
		return dds.Config{DomainID: *d}, nil
	}
	id, err := dds.DomainFromEnv()
	return dds.Config{DomainID: id}, err
}

// ros2QoS parses ros2.qos (validated by Check with the same parser).
func ros2QoS(cfg *config.Config) (map[string]dds.QoS, error) {
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

// autoQoS is a topic's QoS without a ros2.qos override: the publishers'
// reliability and durability, and of a transient-local (latched) topic
// only the last sample on joining, as a ROS1 latched topic gives it. A
// deeper history would replay a state topic's past transitions, all
// stamped with the moment edged joined: segments that never happened
// then. Depth 1 keeps the newest sample not yet taken, so this holds as
// long as the writer's history arrives faster than the reader takes it;
// an older sample taken before the next arrived (a loaded machine) still
// shows as a short segment at the join.
var autoQoS = dds.QoS{Depth: 1}

// ros2Node is what capture needs from a ROS 2 participant: a DDS reader
// per topic with the topic's QoS override (else automatic), and
// use_sim_time from the config (ROS 2 has no parameter server to ask).
type ros2Node struct {
	p          *dds.Participant
	qos        map[string]dds.QoS
	useSimTime bool
}

func (n ros2Node) Subscribe(ctx context.Context, o ros.SubscribeOptions) (capture.Subscription, error) {
	q, ok := n.qos[o.Topic]
	if !ok {
		q = autoQoS
	}
	s, err := n.p.Subscribe(ctx, dds.SubscribeOptions{Topic: o.Topic, QoS: q, QueueSize: o.QueueSize,
		MaxMessageBytes: o.MaxMessageBytes, QueueBytes: o.QueueBytes})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return s, nil
}

// SubscribeTypes is Subscribe reading only writers of types (capture's
// role types, nil: any): a writer of another type on the topic, even
// one that appears first, decides nothing; it is warned about and
// counted (capture's TopicStats.WrongTypeWriters).
func (n ros2Node) SubscribeTypes(ctx context.Context, o ros.SubscribeOptions, types []string) (capture.Subscription, error) {
	q, ok := n.qos[o.Topic]
	if !ok {
		q = autoQoS
	}
	s, err := n.p.Subscribe(ctx, dds.SubscribeOptions{Topic: o.Topic, Types: types, QoS: q, QueueSize: o.QueueSize,
		MaxMessageBytes: o.MaxMessageBytes, QueueBytes: o.QueueBytes})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return s, nil
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

// GetParam answers /use_sim_time from ros2.use_sim_time; nothing else is
// asked.
func (n ros2Node) GetParam(_ context.Context, key string) (any, error) {
	if key == "/use_sim_time" {
		return n.useSimTime, nil
	}
	return nil, nil
}

// ros2Topics are the ROS 2 graph's published topics, for discovery: one
// pair per type a topic's writers declare, so that a writer of another
// type on a camera topic does not hide the camera.
func ros2Topics(p *dds.Participant) []capture.TopicType {
	var out []capture.TopicType
	for _, t := range dds.Topics(p.Publications()) {
		for _, typ := range t.Types {
			out = append(out, capture.TopicType{Topic: t.Name, Type: cdr.ROS1Name(typ)})
		}
	}
	return out
}

// joinROS joins the graph ros.version names: a ROS1 node (with the log
// on /rosout) or a ROS 2 participant. The func it returns leaves.
func (d *Daemon) joinROS(ctx context.Context) (leave func(), err error) {
	if rosVersion(&d.cfg) == 2 {
		c, err := ros2Config(&d.cfg)
		if err != nil {
			return nil, fmt.Errorf("ros.version 2: %w", err)
		}
		c.Logger = d.log
		if d.ros2, err = dds.NewParticipant(c); err != nil {
			return nil, fmt.Errorf("joining ROS 2 domain %d: %w", c.DomainID, err)
		}
		d.log.Info("daemon: joined the ROS 2 graph", "domain_id", c.DomainID)
		return func() { d.ros2.Close() }, nil
	}
	if d.node, err = ros.NewNode(ctx, d.rosConfig()); err != nil {
		return nil, err
	}
	detach := d.publishLog()
	d.serveLogLevel()
	return func() {
		detach()
		d.node.Close()
	}, nil
}

// captureNode is the graph as capture sees it.
func (d *Daemon) captureNode() capture.Node {
	if d.ros2 != nil {
		qos, _ := ros2QoS(&d.cfg) // checked by New
		return ros2Node{p: d.ros2, qos: qos, useSimTime: d.cfg.ROS2.UseSimTime}
	}
	return capture.FromNode(d.node)
}

// shutdown is closed when the ROS1 graph asks the node to end; never
// under ROS 2 (no such request there).
func (d *Daemon) shutdown() <-chan struct{} {
	if d.node == nil {
		return nil
	}
	return d.node.Shutdown()
}

func (d *Daemon) nodeName() string {
	if d.node == nil {
		return fmt.Sprintf("ros2 domain %d", d.ros2.DomainID())
	}
	return d.node.Name()
}

// nodeStatus is the status page's view of the graph connection; under
// ROS 2 the "master" is the DDS domain, always up.
func (d *Daemon) nodeStatus() ros.Status {
	if d.node == nil {
		name := d.nodeName()
		return ros.Status{Name: name, MasterURI: name, MasterUp: true}
	}
	return d.node.Status()
}
