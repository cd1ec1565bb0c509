package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
)

// cameras returns the configured cameras with a ring each, or, when none
// are configured, those the master knows (asked until it answers).
func (d *Daemon) cameras(ctx context.Context, node *ros.Node) ([]camera, error) {
	var topics []string
	names := map[string]string{}
	for _, c := range d.cfg.Cameras {
		topics = append(topics, c.Topic)
		names[c.Topic] = c.Name
	}
	if len(topics) == 0 {
		var err error
		if topics, err = d.discover(ctx, node); err != nil {
			return nil, err
		}
	}
	rcfg := ringbuf.Config{MaxBytes: int(d.cfg.Ring.MaxBytes), MaxAge: d.cfg.Ring.MaxAge.D()}
	var cams []camera
	for _, t := range topics {
		ring, err := ringbuf.New(rcfg)
		if err != nil {
			return nil, fmt.Errorf("ring: %w", err)
		}
		name := names[t]
		if name == "" {
			name = t
		}
		cams = append(cams, camera{topic: t, name: fileName(name), ring: ring})
	}
	return cams, nil
}

// discover asks the master for camera topics until it answers.
func (d *Daemon) discover(ctx context.Context, node *ros.Node) ([]string, error) {
	for {
		tt, err := node.Master().GetPublishedTopics(ctx, "")
		if err == nil {
			in := make([]capture.TopicType, len(tt))
			for i, t := range tt {
				in[i] = capture.TopicType{Topic: t.Name, Type: t.Type}
			}
			cams, _ := capture.Discover(in)
			d.log.Info("daemon: discovered cameras", "cameras", cams)
			return cams, nil
		}
		d.log.Warn("daemon: cannot ask the master for camera topics; retrying", "err", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d.opts.DiscoverEvery):
		}
	}
}

// startCapture subscribes every role's topics; sinks must already run.
func (d *Daemon) startCapture(ctx context.Context, fcfg fsm.Config) (*capture.Capture, error) {
	ccfg := capture.Config{MaxStampSkew: d.cfg.Capture.MaxStampSkew.D(), QueueSize: d.cfg.ROS.QueueSize,
		MaxMessageBytes: int(d.cfg.ROS.MaxMessage)}
	for _, c := range d.cams {
		ccfg.Cameras = append(ccfg.Cameras, c.topic)
	}
	for _, j := range d.cfg.Joints {
		ccfg.Joints = append(ccfg.Joints, j.Topic)
	}
	sinks := capture.Sinks{Frames: d.router, Joints: &d.joints}
	if d.machine != nil {
		topics, dynamic := fcfg.Topics()
		for i, t := range topics {
			ccfg.FSM = append(ccfg.FSM, capture.FSMTopic{Topic: t, Dynamic: dynamic[i]})
		}
		sinks.States = d.machine
	}
	c, err := capture.New(ccfg, capture.FromNode(d.node), sinks, capture.Options{Logger: d.log})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}
