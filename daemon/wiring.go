package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
)

// topology is what capture subscribes besides the FSM topics: cameras
// (each with its ring) and joint topics. It is replaced whole, never
// mutated, so readers may keep one.
type topology struct {
	cams   []camera
	joints []string
	// wanted are the camera topics it was built from: cams and those
	// refused for a directory another camera has (refusedDir).
	wanted  []string
	refused []string
}

func (t *topology) cameraTopics() []string {
	out := make([]string, len(t.cams))
	for i, c := range t.cams {
		out[i] = c.topic
	}
	return out
}

// closeRingsNotIn releases the rings of cameras that next dropped (a
// builder still reading one finds no frames: placeholder tiles).
func (t *topology) closeRingsNotIn(next *topology) {
	for _, c := range t.cams {
		if !slices.ContainsFunc(next.cams, func(n camera) bool { return n.ring == c.ring }) {
			c.ring.Close()
		}
	}
}

// closeRings releases every ring (at shutdown, after the sheets).
func (t *topology) closeRings() {
	for _, c := range t.cams {
		c.ring.Close()
	}
}

func (t *topology) same(cams, joints []string) bool {
	return slices.Equal(t.wanted, cams) && slices.Equal(t.joints, joints)
}

// wantedTopics are the configured cameras and joints; a role with none
// configured is filled from the master's published topics, as the
// discovery section allows (discovered, discover.go; one ask,
// bounded; when the master does not answer, the current topology's
// topics are kept).
func (d *Daemon) wantedTopics(ctx context.Context, cfg *config.Config, cur *topology) (cams, joints []string) {
	cams, joints = configuredTopics(cfg)
	if len(cams) > 0 && len(joints) > 0 {
		return cams, joints
	}
	if d.ros2 != nil {
		return d.discovered(cfg, cur, cams, joints, ros2Topics(d.ros2))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tt, err := d.node.Master().GetPublishedTopics(ctx, "")
	if err != nil {
		d.log.Debug("daemon: cannot ask the master for topics; keeping the current ones", "err", err)
		return orTopics(cams, cur.cameraTopics()), orTopics(joints, cur.joints)
	}
	in := make([]capture.TopicType, len(tt))
	for i, t := range tt {
		in[i] = capture.TopicType{Topic: t.Name, Type: t.Type}
	}
	return d.discovered(cfg, cur, cams, joints, in)
}

// configuredTopics are the config's camera and joint topics.
func configuredTopics(cfg *config.Config) (cams, joints []string) {
	for _, c := range cfg.Cameras {
		cams = append(cams, c.Topic)
	}
	for _, j := range cfg.Joints {
		joints = append(joints, j.Topic)
	}
	return cams, joints
}

// orTopics is configured, or else fallback when nothing is configured.
func orTopics(configured, fallback []string) []string {
	if len(configured) > 0 {
		return configured
	}
	return fallback
}

// newTopology builds a topology, keeping the rings (and their frames) of
// cameras that stay.
func (d *Daemon) newTopology(cfg *config.Config, cur *topology, cams, joints []string) (*topology, error) {
	names := map[string]string{}
	for _, c := range cfg.Cameras {
		names[c.Topic] = c.Name
	}
	rcfg := ringConfig(cfg)
	if err := rcfg.Validate(); err != nil { // as written: ringbuf.New would default a 0
		return nil, err
	}
	t := &topology{joints: joints, wanted: cams}
	dirs := make(map[string]string, len(cams)) // directory -> camera topic
	for _, topic := range cams {
		dir := cameraDir(topic, names[topic])
		if other, taken := dirs[dir]; taken && other != topic { // one topic twice is capture's to refuse
			d.refusedDir(cur, t, topic, other, dir)
			continue
		}
		dirs[dir] = topic
		if i := slices.IndexFunc(cur.cams, func(c camera) bool { return c.topic == topic }); i >= 0 {
			t.cams = append(t.cams, cur.cams[i])
			continue
		}
		ring, err := ringbuf.New(rcfg)
		if err != nil {
			return nil, fmt.Errorf("ring for %s: %w", topic, err)
		}
		t.cams = append(t.cams, camera{topic: topic, name: dir, ring: ring})
	}
	return t, nil
}

// startCapture subscribes the topology's topics and the FSM's; the sinks
// must already run.
func (d *Daemon) startCapture(ctx context.Context, t *topology) (*capture.Capture, error) {
	ccfg, sinks := d.captureSetup(t)
	var node capture.Node
	node, ccfg.SimTime = d.captureNode()
	c, err := capture.New(ccfg, node, sinks, capture.Options{Logger: d.log, ROS2Types: d.ros2Types})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// captureSetup is capture's config and sinks for topology t (live and
// replay alike): the rings' router, the joint sink and the fsm stage.
func (d *Daemon) captureSetup(t *topology) (capture.Config, capture.Sinks) {
	var fc *fsm.Config
	if d.machine != nil {
		fc = &d.fsmCfg
	}
	ccfg := captureConfig(&d.cfg, t.cameraTopics(), t.joints, fc)
	sinks := capture.Sinks{Frames: &d.router, Joints: &d.joints}
	if d.machine != nil {
		sinks.States = d.machine
	}
	return ccfg, sinks
}

// captureConfig is capture's config for these camera and joint topics
// and, when fc is not nil, the fsm stage's topics, each named by its
// config key in capture's errors. Check validates what it returns for
// the configured topics, so capture's topic rules are applied once.
func captureConfig(cfg *config.Config, cams, joints []string, fc *fsm.Config) capture.Config {
	ccfg := capture.Config{MaxStampSkew: cfg.Capture.MaxStampSkew.D(), QueueSize: cfg.ROS.QueueSize,
		StateQueueSize: cfg.ROS.StateQueueSize, MaxMessageBytes: int(cfg.ROS.MaxMessage),
		QueueBytes: int(cfg.ROS.QueueBytes), StateQueueBytes: int(cfg.ROS.StateQueueBytes),
		MaxStateMessageBytes: int(cfg.ROS.MaxStateMessage),
		Cameras:              cams, Joints: joints}
	if fc == nil {
		return ccfg
	}
	topics, dynamic := fc.Topics()
	for i, topic := range topics {
		ccfg.FSM = append(ccfg.FSM, capture.FSMTopic{Topic: topic, Dynamic: dynamic[i], Field: fsmTopicField(fc, i, topic),
			Types: fsmTopicTypes(fc, topic)})
	}
	return ccfg
}

// fsmTopicField is the config key of fc.Topics()[i].
func fsmTopicField(fc *fsm.Config, i int, topic string) string {
	switch {
	case i < len(fc.Sources):
		return fmt.Sprintf("fsm[%d].topic", i)
	case topic == fc.RecordingTopic:
		return "episode.recording_topic"
	default:
		return "episode.instruction_topic"
	}
}

// setTopology makes t current: frames go to its rings, new episodes get
// its cameras, and capture is restarted on its topics. The open episode
// and the fsm stage are not touched; a camera added mid-episode gets
// sheets from the next episode on (its tick grid starts at an episode's
// start).
func (d *Daemon) setTopology(ctx context.Context, t *topology) error {
	prev := d.topo.Swap(t)
	d.router.use(t.cams)
	if old := d.capt.Swap(nil); old != nil {
		old.Close()
	}
	if prev != nil {
		prev.closeRingsNotIn(t)
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
	d.log.Info("daemon: subscribed", "cameras", t.cameraTopics(), "joints", t.joints)
	return nil
}

// refresh re-resolves the topics (after a reload or a discovery round)
// and applies them when they changed.
func (d *Daemon) refresh(ctx context.Context, cfg *config.Config) error {
	cur := d.topo.Load()
	cams, joints := d.wantedTopics(ctx, cfg, cur)
	if cur.same(cams, joints) {
		return nil
	}
	t, err := d.newTopology(cfg, cur, cams, joints)
	if err != nil {
		return err
	}
	return d.setTopology(ctx, t)
}

// ringConfig maps the file's ring section onto each camera's ring, as
// written (a 0 is refused by ringbuf's rules, not defaulted): Check
// validates exactly what newTopology builds.
func ringConfig(cfg *config.Config) ringbuf.Config {
	return ringbuf.Config{MaxBytes: int(cfg.Ring.MaxBytes), MaxAge: cfg.Ring.MaxAge.D(), MaxFrames: ringbuf.DefaultMaxFrames}
}
