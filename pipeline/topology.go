package pipeline

import (
	"fmt"
	"slices"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
)

// Topology is what capture subscribes besides the FSM topics: cameras
// (each with its ring) and joint topics. It is replaced whole, never
// mutated, so readers may keep one.
type Topology struct {
	cams   []camera
	joints []string
	// wanted are the camera topics it was built from: cams and those
	// refused for a directory another camera has (refusedDir).
	wanted  []string
	refused []string
}

// CameraTopics are the topics of the topology's cameras.
func (t *Topology) CameraTopics() []string {
	out := make([]string, len(t.cams))
	for i, c := range t.cams {
		out[i] = c.topic
	}
	return out
}

// Joints are the topology's joint topics.
func (t *Topology) Joints() []string { return t.joints }

// RingStats are the stats of each camera's ring, by camera topic.
func (t *Topology) RingStats() []RingStats {
	out := make([]RingStats, len(t.cams))
	for i, c := range t.cams {
		out[i] = RingStats{Topic: c.topic, Stats: c.ring.Stats()}
	}
	return out
}

// RingStats is one camera's ring, for /metrics.
type RingStats struct {
	Topic string
	ringbuf.Stats
}

// CloseRingsNotIn releases the rings of cameras that next dropped (a
// builder still reading one finds no frames: placeholder tiles).
func (t *Topology) CloseRingsNotIn(next *Topology) {
	for _, c := range t.cams {
		if !slices.ContainsFunc(next.cams, func(n camera) bool { return n.ring == c.ring }) {
			c.ring.Close()
		}
	}
}

// closeRings releases every ring (at shutdown, after the sheets).
func (t *Topology) closeRings() {
	for _, c := range t.cams {
		c.ring.Close()
	}
}

// Same reports whether t was built from these camera and joint topics.
func (t *Topology) Same(cams, joints []string) bool {
	return slices.Equal(t.wanted, cams) && slices.Equal(t.joints, joints)
}

// ConfiguredTopics are the config's camera and joint topics.
func ConfiguredTopics(cfg *config.Config) (cams, joints []string) {
	for _, c := range cfg.Cameras {
		cams = append(cams, c.Topic)
	}
	for _, j := range cfg.Joints {
		joints = append(joints, j.Topic)
	}
	return cams, joints
}

// NewTopology builds a topology, keeping the rings (and their frames) of
// cameras that stay in cur (nil: none).
func (p *Pipeline) NewTopology(cfg *config.Config, cur *Topology, cams, joints []string) (*Topology, error) {
	if cur == nil {
		cur = &Topology{}
	}
	names := map[string]string{}
	for _, c := range cfg.Cameras {
		names[c.Topic] = c.Name
	}
	rcfg := ringConfig(cfg)
	if err := rcfg.Validate(); err != nil { // as written: ringbuf.New would default a 0
		return nil, err
	}
	t := &Topology{joints: joints, wanted: cams}
	dirs := make(map[string]string, len(cams)) // directory -> camera topic
	for _, topic := range cams {
		dir := cameraDir(topic, names[topic])
		if other, taken := dirs[dir]; taken && other != topic { // one topic twice is capture's to refuse
			p.refusedDir(cur, t, topic, other, dir)
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

// Topology is the current topology (empty before UseTopology).
func (p *Pipeline) Topology() *Topology { return p.topo.Load() }

// UseTopology makes t current: frames go to its rings and new episodes
// get its cameras. It returns the previous one, whose rings the caller
// releases (CloseRingsNotIn) once capture no longer feeds them. The
// open episode and the fsm stage are not touched; a camera added
// mid-episode gets sheets from the next episode on (its tick grid
// starts at an episode's start).
func (p *Pipeline) UseTopology(t *Topology) (prev *Topology) {
	prev = p.topo.Swap(t)
	p.router.use(t.cams)
	return prev
}

// CaptureSetup is capture's config and sinks for topology t (live and
// replay alike): the rings' router, the joint sink and the fsm stage.
func (p *Pipeline) CaptureSetup(t *Topology) (capture.Config, capture.Sinks) {
	var fc *fsm.Config
	if p.machine != nil {
		fc = &p.fsmCfg
	}
	ccfg := captureConfig(&p.cfg, t.CameraTopics(), t.joints, fc)
	sinks := capture.Sinks{Frames: &p.router, Joints: &p.joints}
	if p.machine != nil {
		sinks.States = p.machine
	}
	return ccfg, sinks
}

// CaptureOptions are capture's options: the log and the ROS 2
// definitions (bundled and ros2.msg_dirs).
func (p *Pipeline) CaptureOptions() capture.Options {
	return capture.Options{Logger: p.log, ROS2Types: p.ros2Types}
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

// ringConfig maps the file's ring section onto each camera's ring, as
// written (a 0 is refused by ringbuf's rules, not defaulted): Check
// validates exactly what NewTopology builds.
func ringConfig(cfg *config.Config) ringbuf.Config {
	return ringbuf.Config{MaxBytes: int(cfg.Ring.MaxBytes), MaxAge: cfg.Ring.MaxAge.D(), MaxFrames: ringbuf.DefaultMaxFrames}
}
