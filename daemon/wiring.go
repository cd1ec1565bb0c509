package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
)

// wantedTopics are the configured cameras and joints; a role with none
// configured is filled from the graph's published topics, as the
// discovery section allows (pipeline's Discovered; one ask, bounded;
// when the master does not answer, the current topology's topics are
// kept).
func (d *Daemon) wantedTopics(ctx context.Context, cfg *config.Config, cur *pipeline.Topology) (cams, joints []string) {
	cams, joints = pipeline.ConfiguredTopics(cfg)
	if len(cams) > 0 && len(joints) > 0 {
		return cams, joints
	}
	if d.ros2 != nil {
		return d.pipe.Discovered(cfg, cur, cams, joints, ros2Topics(d.ros2))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tt, err := d.node.Master().GetPublishedTopics(ctx, "")
	if err != nil {
		d.log.Debug("daemon: cannot ask the master for topics; keeping the current ones", "err", err)
		return orTopics(cams, cur.CameraTopics()), orTopics(joints, cur.Joints())
	}
	in := make([]capture.TopicType, len(tt))
	for i, t := range tt {
		in[i] = capture.TopicType{Topic: t.Name, Type: t.Type}
	}
	return d.pipe.Discovered(cfg, cur, cams, joints, in)
}

// orTopics is configured, or else fallback when nothing is configured.
func orTopics(configured, fallback []string) []string {
	if len(configured) > 0 {
		return configured
	}
	return fallback
}

// startCapture subscribes the topology's topics and the FSM's; the sinks
// must already run.
func (d *Daemon) startCapture(ctx context.Context, t *pipeline.Topology) (*capture.Capture, error) {
	ccfg, sinks := d.pipe.CaptureSetup(t)
	var node capture.Node
	node, ccfg.SimTime = d.captureNode()
	c, err := capture.New(ccfg, node, sinks, d.pipe.CaptureOptions())
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// setTopology makes t current (pipeline's UseTopology) and restarts
// capture on its topics; the rings of cameras t dropped are released
// once the old capture is closed.
func (d *Daemon) setTopology(ctx context.Context, t *pipeline.Topology) error {
	prev := d.pipe.UseTopology(t)
	if old := d.capt.Swap(nil); old != nil {
		old.Close()
	}
	if prev != nil {
		prev.CloseRingsNotIn(t)
	}
	c, err := d.startCapture(ctx, t)
	if errors.Is(err, capture.ErrNoTopics) {
		// discovery mode before any camera is published: stay up, not
		// ready (/healthz: capture not started); the next discovery
		// round that finds topics starts capture
		d.log.Warn("daemon: no topics to capture yet; waiting for cameras or joints to be published", "every", d.opts.RediscoverEvery)
		return nil
	}
	if err != nil {
		return err
	}
	d.capt.Store(c)
	d.log.Info("daemon: subscribed", "cameras", t.CameraTopics(), "joints", t.Joints())
	return nil
}

// refresh re-resolves the topics (after a reload or a discovery round)
// and applies them when they changed.
func (d *Daemon) refresh(ctx context.Context, cfg *config.Config) error {
	cur := d.pipe.Topology()
	cams, joints := d.wantedTopics(ctx, cfg, cur)
	if cur.Same(cams, joints) {
		return nil
	}
	t, err := d.pipe.NewTopology(cfg, cur, cams, joints)
	if err != nil {
		return err
	}
	return d.setTopology(ctx, t)
}
