package capture

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// DefaultMaxStampSkew is how far a header stamp may be from the capture
// clock and still be trusted: generous for transport latency and for
// robots whose computers are not NTP-synced to each other, tight enough
// to reject stamps from another epoch (zero, 1970, a bag played without
// --clock). It matches config's capture.max_stamp_skew default.
const DefaultMaxStampSkew = 10 * time.Minute

// DefaultClockTopic is where ROS publishes simulated time.
const DefaultClockTopic = "/clock"

// DefaultStateQueueSize bounds the queue of a joint, FSM or /clock topic:
// 2 s of joints at 500 Hz.
const DefaultStateQueueSize = 1024

// Byte bounds per topic. They match config's ros.queue_bytes,
// ros.state_queue_bytes and ros.max_state_message defaults.
//
// Memory. Every subscription is bounded in bytes as well as in count
// (the ros package charges frames being read, queued and not yet
// released): a camera topic holds at most QueueBytes with messages up to
// MaxMessageBytes (64 MiB); a joint, FSM or /clock topic at most
// StateQueueBytes with messages up to MaxStateMessageBytes. Drops are
// counted in TopicStats.SubscriptionDrops and logged (rate limited).
// Decoding a state message dynamically costs at most msg.DecodeBudget
// of its size (64 KiB + 16x: 16.1 MiB for the largest), on the topic's
// goroutine, one at a time; replay applies the same message caps
// (OversizeDrops). Per publisher connection add ~1.1 MiB (read buffer,
// connection header) and at most 16 publishers per topic
// (ros.DefaultMaxPublishers). So whatever one peer does on one topic,
// capture holds at most, with the defaults:
//
//	camera topic: 128 MiB + 16 x 1.1 MiB            ~ 146 MiB
//	state topic:  16 MiB + 16.1 MiB + 16 x 1.1 MiB  ~ 50 MiB
//
// A peer publishing on several topics costs the sum of theirs. The
// rings' budget (ring.max_bytes per camera) and what the state sinks
// queue (the fsm stage) come on top.
const (
	// DefaultQueueBytes bounds what one camera topic holds: two
	// messages at the default 64 MiB cap, 20 1080p rgb8 images.
	DefaultQueueBytes = 128 << 20
	// DefaultMaxStateMessageBytes caps one joint, FSM or /clock message:
	// a JointState of 26 joints is 700 bytes, an FSM state a few dozen,
	// a SMACH status with its userdata a few KiB.
	DefaultMaxStateMessageBytes = 1 << 20
	// DefaultStateQueueBytes bounds what one joint, FSM or /clock topic
	// holds: the 1024 default queue of 16 KiB messages, or 16 of the
	// largest allowed.
	DefaultStateQueueBytes = 16 << 20
)

// DefaultMaxJoints caps the joints of one JointState (names, or
// positions, velocities or efforts): a humanoid has a few dozen, a
// dual-arm mobile manipulator under a hundred. A larger message is
// dropped and counted (TopicStats.TooManyJoints): each joint sample is
// kept for the snippets, and a 1 MiB message of 125,000 one-letter names
// costs ~3 MiB once decoded.
const DefaultMaxJoints = 1024

// ErrNoTopics is wrapped by Validate when no topic is configured: the
// caller may wait for topics to appear (Discover) instead of failing.
var ErrNoTopics = errors.New("no topics to capture")

// SimTime chooses the capture clock.
type SimTime uint8

const (
	// SimTimeAuto reads the /use_sim_time parameter at Start, when the
	// Node has parameters (Params, ROS1): when it is true the capture
	// clock is /clock (so `rosbag play --clock` works), otherwise the
	// wall clock; a Node without parameters runs on the wall clock. The
	// default.
	SimTimeAuto SimTime = iota
	// SimTimeOff always uses the wall clock.
	SimTimeOff
	// SimTimeOn always uses /clock.
	SimTimeOn
)

// FSMTopic is one FSM source topic.
type FSMTopic struct {
	Topic string
	// Dynamic delivers every message as a *msg.Value decoded from the
	// publisher's definition, even for types with a typed decoder (the
	// fsm package's field source reads a path from it). Otherwise
	// std_msgs/String, smach_msgs/SmachContainerStatus and
	// actionlib_msgs/GoalStatusArray arrive typed and anything else as
	// *msg.Value.
	Dynamic bool
	// Types are the ROS 2 types the source reads (pkg/msg/Type), which
	// its subscription asks for (SubscribeOptions.Types) so that a
	// writer of another type on the topic decides nothing; nil: any type
	// (the first writer's).
	Types []string
	// Field is the config key that named the topic, for errors.
	// Default fsm[i].topic (i its index here); the daemon sets
	// episode.recording_topic and episode.instruction_topic.
	Field string
}

// Config says which topics feed which role. The zero value plus topics
// is valid: every other field has a documented default.
type Config struct {
	// Cameras: sensor_msgs/Image or sensor_msgs/CompressedImage topics.
	// When empty, the caller may fill it with Discover.
	Cameras []string
	// Joints: sensor_msgs/JointState topics.
	Joints []string
	// FSM: the state machine's topics, of any type.
	FSM []FSMTopic

	// MaxStampSkew: a header stamp farther than this from the capture
	// clock is implausible and the receive time is used instead.
	// Default DefaultMaxStampSkew (10m).
	MaxStampSkew time.Duration
	// SimTime chooses the capture clock. Default SimTimeAuto.
	SimTime SimTime
	// ClockTopic carries rosgraph_msgs/Clock under sim time. Default /clock.
	ClockTopic string
	// QueueSize bounds each camera subscription's queue (messages
	// waiting for capture); the oldest is dropped and counted when it is
	// full. Default 0: the ros package's default (8).
	QueueSize int
	// StateQueueSize is the same bound for joint, FSM and /clock topics:
	// small messages at high rates (joints at 500 Hz-1 kHz) that must
	// ride out a busy moment, and FSM messages are the ground truth.
	// Default DefaultStateQueueSize (1024).
	StateQueueSize int
	// QueueBytes bounds the bytes each camera subscription holds
	// (frames being read, queued, and not yet released by the sink);
	// the oldest is dropped and counted when a frame does not fit. Must
	// be >= MaxMessageBytes. Default DefaultQueueBytes (128 MiB).
	QueueBytes int
	// StateQueueBytes is the same for joint, FSM and /clock topics.
	// Must be >= MaxStateMessageBytes. Default DefaultStateQueueBytes
	// (16 MiB).
	StateQueueBytes int
	// MaxMessageBytes caps one camera message; 0: the ros package's
	// default (64 MiB, enough for a 4K rgb8 image).
	MaxMessageBytes int
	// MaxStateMessageBytes caps one joint, FSM or /clock message, live
	// and in a replay (a larger one is dropped and counted). Default
	// DefaultMaxStateMessageBytes (1 MiB).
	MaxStateMessageBytes int
	// MaxJoints caps the joints of one JointState; a larger one is
	// dropped and counted. Default DefaultMaxJoints (1024).
	MaxJoints int
}

func (c Config) withDefaults() Config {
	if c.MaxStampSkew == 0 {
		c.MaxStampSkew = DefaultMaxStampSkew
	}
	if c.ClockTopic == "" {
		c.ClockTopic = DefaultClockTopic
	}
	if c.StateQueueSize == 0 {
		c.StateQueueSize = DefaultStateQueueSize
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = tcpros.DefaultMaxFrameBytes
	}
	if c.QueueBytes == 0 {
		c.QueueBytes = max(DefaultQueueBytes, c.MaxMessageBytes)
	}
	if c.MaxStateMessageBytes == 0 {
		c.MaxStateMessageBytes = DefaultMaxStateMessageBytes
	}
	if c.StateQueueBytes == 0 {
		c.StateQueueBytes = max(DefaultStateQueueBytes, c.MaxStateMessageBytes)
	}
	if c.MaxJoints == 0 {
		c.MaxJoints = DefaultMaxJoints
	}
	return c
}

// Validate checks the config without any I/O. Its errors name the
// config file's key (cameras[1].topic: "cam" is not a global ROS
// name). Capture owns the topics' rules: names as ros.CheckName has
// them, made global by the caller (daemon resolves them), and one role
// per topic; config and fsm do not repeat them, daemon.Check applies
// them to the topics run subscribes.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fielderr.New(field, format, args...))
	}
	seen := map[string]string{}
	topic := func(field, t string) {
		if err := checkGlobal(t); err != nil {
			add(field, "%w", err)
			return
		}
		if prev, dup := seen[t]; dup {
			add(field, "topic %s is already used by %s: one topic feeds one role", t, prev)
			return
		}
		seen[t] = field
	}
	for i, t := range c.Cameras {
		topic(fmt.Sprintf("cameras[%d].topic", i), t)
	}
	for i, t := range c.Joints {
		topic(fmt.Sprintf("joints[%d].topic", i), t)
	}
	for i, t := range c.FSM {
		f := t.Field
		if f == "" {
			f = fmt.Sprintf("fsm[%d].topic", i)
		}
		topic(f, t.Topic)
	}
	if c.ClockTopic != "" {
		if err := checkGlobal(c.ClockTopic); err != nil {
			add("clock_topic", "%w", err)
		}
	}
	if _, dup := seen[c.withDefaults().ClockTopic]; dup && c.SimTime != SimTimeOff {
		add("clock_topic", "%s is also configured as a data topic", c.withDefaults().ClockTopic)
	}
	c.validateBounds(add)
	if len(c.Cameras)+len(c.Joints)+len(c.FSM) == 0 {
		errs = append(errs, fmt.Errorf("cameras, joints, fsm: %w", ErrNoTopics))
	}
	return errors.Join(errs...)
}

// validateBounds holds the one rule set of capture's bounds; its errors
// name the config file's keys (ros.queue_size, capture.max_stamp_skew),
// which config does not check again: 0 is each field's default.
func (c Config) validateBounds(add func(field, format string, args ...any)) {
	if c.MaxStampSkew < 0 {
		add("capture.max_stamp_skew", "must be >= 0 (0: default %v), got %v", DefaultMaxStampSkew, c.MaxStampSkew)
	}
	if c.MaxJoints < 0 {
		add("max_joints", "must be >= 0 (0: default %d), got %d", DefaultMaxJoints, c.MaxJoints)
	}
	if c.SimTime > SimTimeOn {
		add("sim_time", "must be SimTimeAuto, SimTimeOff or SimTimeOn, got %d", c.SimTime)
	}
	for _, q := range []struct {
		field  string
		v, max int
	}{{"ros.queue_size", c.QueueSize, 10000}, {"ros.state_queue_size", c.StateQueueSize, 100000}} {
		if q.v < 0 || q.v > q.max {
			add(q.field, "must be in 1..%d (0: default), got %d", q.max, q.v)
		}
	}
	for _, f := range []struct {
		field string
		v     int
	}{{"ros.max_message", c.MaxMessageBytes}, {"ros.max_state_message", c.MaxStateMessageBytes}} {
		if f.v < 0 || (f.v > 0 && f.v < 1024) {
			add(f.field, "must be >= 1KiB (0: default), got %d bytes", f.v)
		}
	}
	for _, f := range []struct {
		field string
		v     int
	}{{"ros.queue_bytes", c.QueueBytes}, {"ros.state_queue_bytes", c.StateQueueBytes}} {
		if f.v < 0 {
			add(f.field, "must be >= 0 (0: default), got %d", f.v)
		}
	}
	if d := c.withDefaults(); c.MaxMessageBytes >= 0 && c.QueueBytes >= 0 && d.QueueBytes < d.MaxMessageBytes {
		add("ros.queue_bytes", "must be >= ros.max_message (%d): one message must fit, got %d", d.MaxMessageBytes, d.QueueBytes)
	}
	if d := c.withDefaults(); c.MaxStateMessageBytes >= 0 && c.StateQueueBytes >= 0 && d.StateQueueBytes < d.MaxStateMessageBytes {
		add("ros.state_queue_bytes", "must be >= ros.max_state_message (%d): one message must fit, got %d", d.MaxStateMessageBytes, d.StateQueueBytes)
	}
}

// checkGlobal is ros.CheckName's rule for a name capture subscribes,
// which must be global (resolved) already.
func checkGlobal(topic string) error {
	if topic == "" {
		return errors.New("required")
	}
	if err := ros.CheckName(topic); err != nil {
		return err
	}
	if !strings.HasPrefix(topic, "/") {
		return fmt.Errorf("%q is not a global ROS name (resolve it in the node's namespace first)", topic)
	}
	return nil
}
