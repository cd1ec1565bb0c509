package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
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

// ddsNode adapts a ROS 2 participant to the Node capture needs: a DDS
// reader per topic, of the types its role can use, with the topic's QoS
// override (else automatic). It has no parameters: ROS 2 has no
// parameter server, and the clock comes from ros2.use_sim_time
// (captureNode).
type ddsNode struct {
	p   *dds.Participant
	qos map[string]dds.QoS
}

// Subscribe reads only writers of o.Types (nil: any): a writer of
// another type on the topic, even one that appears first, decides
// nothing; it is warned about and counted (capture's
// TopicStats.WrongTypeWriters).
func (n ddsNode) Subscribe(ctx context.Context, o capture.SubscribeOptions) (capture.Subscription, error) {
	q, ok := n.qos[o.Topic]
	if !ok {
		q = autoQoS
	}
	s, err := n.p.Subscribe(ctx, dds.SubscribeOptions{Topic: o.Topic, Types: o.Types, QoS: q, QueueSize: o.QueueSize,
		MaxMessageBytes: o.MaxMessageBytes, QueueBytes: o.QueueBytes, Handler: o.Handle})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return ddsSub{s, o.Handle != nil}, nil
}

// ddsSub is a ROS 2 subscription; direct (capture.Direct) when it was
// given a Handle, which the participant's pump then calls for every
// sample.
type ddsSub struct {
	*dds.Subscription
	direct bool
}

func (s ddsSub) HandlesDirectly() bool { return s.direct }

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
		stopSnapshot, err := d.serveSnapshotROS2(ctx)
		if err != nil {
			d.log.Warn("daemon: cannot serve ~snapshot; POST /clip still triggers clips", "err", err)
			stopSnapshot = func() {}
		}
		return func() {
			stopSnapshot()
			d.ros2.Close()
		}, nil
	}
	if d.node, err = ros.NewNode(ctx, d.rosConfig()); err != nil {
		return nil, err
	}
	detach := d.publishLog()
	d.serveLogLevel()
	d.serveSnapshot()
	return func() {
		detach()
		d.node.Close()
	}, nil
}

// captureNode is the graph as capture sees it, and the clock capture
// runs on: under ROS1 the master's /use_sim_time, which capture reads
// and follows (SimTimeAuto); under ROS 2, which has no parameter server,
// ros2.use_sim_time.
func (d *Daemon) captureNode() (capture.Node, capture.SimTime) {
	if d.ros2 == nil {
		return capture.FromROS1(d.node), capture.SimTimeAuto
	}
	qos, _ := pipeline.ROS2QoS(&d.cfg) // checked by New
	sim := capture.SimTimeOff
	if d.cfg.ROS2.UseSimTime {
		sim = capture.SimTimeOn
	}
	return ddsNode{p: d.ros2, qos: qos}, sim
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

// setGraph fills the status page's view of the graph connection: the
// node's name and, under ROS1, its master and whether it answers (ROS 2
// has no master: a DDS domain has no server to be down).
func (d *Daemon) setGraph(p *pageData) {
	p.Node = d.nodeName()
	if d.node == nil {
		return
	}
	st := d.node.Status()
	p.Master, p.MasterUp = st.MasterURI, &st.MasterUp
}
