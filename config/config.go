package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// Config is the whole file. Zero values are replaced by the defaults
// documented on each field before validation.
type Config struct {
	// RobotID names this robot in MQTT topics and episode ids. Required;
	// letters, digits, '-', '_' and '.', not starting with '.', at most
	// 64 characters, no episode time in it such as
	// -20260101T000000.000Z (uplink.CheckRobotID's rule).
	RobotID string `yaml:"robot_id"`
	// DataDir holds episodes/ and outbox/. Default /var/lib/edged.
	DataDir string         `yaml:"data_dir"`
	ROS     ROS            `yaml:"ros"`
	ROS2    ROS2           `yaml:"ros2"`
	Cameras []CameraTopic  `yaml:"cameras"`
	Joints  []JointTopic   `yaml:"joints"`
	FSM     []FSMSource    `yaml:"fsm"`
	Episode Episode        `yaml:"episode"`
	Ring    Ring           `yaml:"ring"`
	Sheet   Sheet          `yaml:"sheet"`
	Uplink  Uplink         `yaml:"uplink"`
	HTTP    HTTP           `yaml:"http"`
	Capture CaptureOptions `yaml:"capture"`
	Checks  Checks         `yaml:"checks"`
	// Discovery bounds what roles left empty take from the graph.
	Discovery Discovery `yaml:"discovery"`
	Replay    Replay    `yaml:"replay"`
	// Clips are the incident clips (docs/clips.md).
	Clips Clips `yaml:"clips"`
}

// Clips writes the last seconds around an incident as one MCAP file
// into its episode. Its rules and defaults are the clip package's.
type Clips struct {
	// Enabled turns clips on. Default false.
	Enabled bool `yaml:"enabled"`
	// Pre is how long before its trigger a clip starts. Default 20s;
	// pre + post must be <= ring.max_age (the window must be in the
	// rings when the clip is read).
	Pre Duration `yaml:"pre"`
	// Post is how long after its trigger a clip ends. Default 5s.
	Post Duration `yaml:"post"`
	// OnStates are FSM states whose entry triggers a clip. Default none.
	OnStates []string `yaml:"on_states"`
	// OnFailureOutcome triggers a clip when an episode closes failed or
	// interrupted. Default true.
	OnFailureOutcome bool `yaml:"on_failure_outcome"`
	// OnUnsat triggers a clip when a trace check is judged UNSAT at an
	// episode's close. Default false.
	OnUnsat bool `yaml:"on_unsat"`
	// OnGoalFailure triggers a clip when an actionlib goal ends ABORTED,
	// REJECTED or LOST. Default false; needs an fsm source of type
	// actionlib.
	OnGoalFailure bool `yaml:"on_goal_failure"`
	// MinInterval: at most one clip per trigger kind this often.
	// Default 1m.
	MinInterval Duration `yaml:"min_interval"`
	// MaxBytes is the disk budget of all clips; the oldest are deleted
	// first (before any episode), a clip alone over it is refused.
	// Default 2GiB, at least 1MiB.
	MaxBytes Size `yaml:"max_bytes"`
	// Quality of the JPEG raw images are encoded at. Default 90, 1..100.
	Quality int `yaml:"quality"`
	// Upload uploads written clips to s3://BUCKET[/PREFIX] (endpoint and
	// credentials as edged sink --out s3://) in the background. Default
	// empty: clips stay on the robot.
	Upload string `yaml:"upload"`
	// UploadRate caps the upload, bytes/s. Default 1MiB, at least 64KiB.
	UploadRate Size `yaml:"upload_rate"`
	// UploadPart is the multipart part size. Default 8MiB, 5MiB..5GiB.
	UploadPart Size `yaml:"upload_part"`
	// KeepUploaded keeps a clip on the robot after its upload is
	// confirmed. Default false: it is deleted then.
	KeepUploaded bool `yaml:"keep_uploaded"`
}

// Clip maps the section onto the clip package's Config.
func (c Clips) Policy() policy.Config {
	return policy.Config{Enabled: c.Enabled, Pre: c.Pre.D(), Post: c.Post.D(), OnStates: c.OnStates,
		OnFailureOutcome: c.OnFailureOutcome, OnUnsat: c.OnUnsat, OnGoalFailure: c.OnGoalFailure, MinInterval: c.MinInterval.D(),
		MaxBytes: int64(c.MaxBytes), Quality: c.Quality,
		Upload: c.Upload, UploadRate: int64(c.UploadRate), UploadPart: int64(c.UploadPart), KeepUploaded: c.KeepUploaded}
}

// Replay tunes edged replay; edged run does not read it.
type Replay struct {
	// MaxGap is the longest stretch of a recording without a message
	// that a replay walks through. A longer one (a paused recorder, a
	// damaged or far-future stamp) ends the open episode at the last
	// message before it, is reported, and the replay goes on after it
	// as a new recording, instead of filling it with empty episodes of
	// episode.max_duration. Default 5m, 1s..24h.
	MaxGap Duration `yaml:"max_gap"`
}

// Checks are the RTL trace checks edged run evaluates when an episode
// closes (docs/rtl.md); their verdicts go into the manifest. The rules'
// format and rules belong to package tracecheck: the daemon checks them
// (daemon.Check), this package only holds them.
type Checks struct {
	// File is a rules file (docs/rtl.md). Default "": none.
	File string `yaml:"file"`
	// Rules are rules inline, in the rules file's format (checks:,
	// map:), evaluated after File's. Default: none.
	Rules yaml.Node `yaml:"rules,omitempty"`
}

// ROS is how edged joins the ROS graph.
type ROS struct {
	// MasterURI of the ROS master, http:// or https://. Default "":
	// $ROS_MASTER_URI at start, else http://localhost:11311 (resolved and
	// checked by the ros package, not here).
	MasterURI string `yaml:"master_uri"`
	// NodeName is edged's node name; a relative one goes into the
	// namespace ($ROS_NAMESPACE or __ns:=), as roscpp puts a node's
	// name. Default edged (/edged in the root namespace). __name:= on
	// the command line overrides it.
	NodeName string `yaml:"node_name"`
	// Host is the address publishers reach edged at. Default "":
	// $ROS_HOSTNAME, else $ROS_IP, else the machine's hostname (ROS's
	// order); __hostname:= or __ip:= on the command line override it.
	Host string `yaml:"host"`
	// MaxMessage caps one received message. Default 64MiB (a 4K rgb8
	// image is 24.9 MB).
	MaxMessage Size `yaml:"max_message"`
	// QueueSize bounds images waiting per camera topic; the oldest is
	// dropped and counted when full. Default 8.
	QueueSize int `yaml:"queue_size"`
	// StateQueueSize is the same for joint, FSM and /clock topics (small
	// messages at high rates; FSM messages are the ground truth).
	// Default 1024.
	StateQueueSize int `yaml:"state_queue_size"`
	// QueueBytes bounds the bytes held per camera topic (being read,
	// queued, not yet copied into the ring), whatever the publishers do;
	// the oldest is dropped and counted when full. Must be >=
	// max_message. Default 128MiB.
	QueueBytes Size `yaml:"queue_bytes"`
	// MaxStateMessage caps one joint, FSM or /clock message (live and in
	// replay). Default 1MiB.
	MaxStateMessage Size `yaml:"max_state_message"`
	// StateQueueBytes is queue_bytes for joint, FSM and /clock topics.
	// Must be >= max_state_message. Default 16MiB.
	StateQueueBytes Size `yaml:"state_queue_bytes"`
	// Version is the ROS edged joins: 1 (a ROS1 master, TCPROS) or 2 (a
	// ROS 2 graph over DDS, see ros2). Default 0: auto, which is 2 when
	// the environment has ROS_VERSION=2 (ROS 2's setup.bash sets it),
	// else 1 (decided at start, not here). edged replay ignores it: each
	// bag's format says whether it is ROS1 or ROS 2.
	Version int `yaml:"version"`
}

// ROS2 is how edged joins a ROS 2 graph (ros.version 2): over DDS with
// Cyclone DDS, the middleware of rmw_cyclonedds_cpp. Cyclone reads its
// own settings (interfaces, peers) from CYCLONEDDS_URI. The ros section's
// queue and message caps apply to ROS 2 topics too.
type ROS2 struct {
	// DomainID is the DDS domain, 0..232. Default: unset, which is
	// $ROS_DOMAIN_ID at start, else 0 (as every ROS 2 node does).
	DomainID *int `yaml:"domain_id"`
	// QoS overrides a topic's reader QoS with a profile: auto (the
	// default for every topic: adopt the publishers' reliability and
	// durability, so a best-effort camera and a transient-local latched
	// topic both match; a latched topic gives its last sample on
	// joining, as in ROS1), default or reliable (reliable, volatile,
	// depth 10), sensor_data or best_effort (best effort, volatile,
	// depth 5), latched or transient_local (reliable, transient-local,
	// depth 1). Keys are topic names, values profiles; the profiles are
	// ros2/dds's (dds.ParseProfile).
	QoS map[string]string `yaml:"qos"`
	// UseSimTime takes the capture clock from /clock
	// (rosgraph_msgs/Clock), as a ROS 2 node's use_sim_time parameter
	// does (ROS 2 has no global /use_sim_time). Default false.
	UseSimTime bool `yaml:"use_sim_time"`
	// MsgDirs are directories of .msg files for the ROS 2 types edged
	// does not bundle, each laid out PKG/msg/TYPE.msg as a ROS 2 share
	// directory is (/opt/ros/jazzy/share works; so does a workspace's
	// install/share). They serve edged run under ROS 2 (a DDS publisher
	// sends no definition) and edged replay of rosbag2 bags whose
	// definitions are missing or placeholders; a type given here wins
	// over a bag's own text for it. Later directories win over earlier
	// ones. `edged echo --ros2 --msg-dir` loads the same way. Default
	// empty: the bundled definitions only.
	MsgDirs []string `yaml:"msg_dirs"`
}

// CameraTopic is one camera: a sensor_msgs/Image or CompressedImage topic.
// Topics here and below are ROS names as roscpp reads them: global
// (/cam/image), relative (cam/image: in the node's namespace) or private
// (~image: under the node's name); command-line remappings apply.
type CameraTopic struct {
	Topic string `yaml:"topic"`
	// Name used in file names and metadata. Default: the topic.
	Name string `yaml:"name"`
}

// JointTopic is one sensor_msgs/JointState topic.
type JointTopic struct {
	Topic string `yaml:"topic"`
}

// FSMSource is one topic the task state machine is read from.
type FSMSource struct {
	Topic string `yaml:"topic"`
	// Type is string | smach | actionlib | field (fsmkind.All, fsm's
	// rule). Default string (fsmkind.Default).
	Type string `yaml:"type"`
	// Field is the path of the state inside the message for type field,
	// e.g. status.phase. Required for field, refused otherwise.
	Field string `yaml:"field"`
	// IdleStates are states between episodes: leaving them starts an
	// episode, returning to one ends it. Default none.
	IdleStates []string `yaml:"idle_states"`
}

// Episode says where episodes start and end besides idle states.
type Episode struct {
	// RecordingTopic is a std_msgs/Bool (true while recording) or
	// std_msgs/String (the episode id, empty between episodes). Default
	// none.
	RecordingTopic string `yaml:"recording_topic"`
	// MaxDuration closes an episode (or a session) that runs longer.
	// Default 1h, at least 1s (fsm.CheckMaxDuration's rule).
	MaxDuration Duration `yaml:"max_duration"`
	// Instruction is the task given to the robot, stored with every
	// episode. Default "".
	Instruction string `yaml:"instruction"`
	// InstructionTopic is a std_msgs/String that overrides Instruction.
	InstructionTopic string `yaml:"instruction_topic"`
	// KeepBytes bounds the episode store on disk; the oldest episodes
	// (uploaded ones first) are deleted past it. Default 4GiB.
	KeepBytes Size `yaml:"keep_bytes"`
	// KeepEpisodes bounds how many episodes are kept. Default 10000.
	KeepEpisodes int `yaml:"keep_episodes"`
	// MinFreeBytes is the free-space floor of data_dir's file system:
	// before an episode begins and after one closes, the oldest closed
	// episodes (uploaded first) are deleted while less is free, so that
	// recording never runs the disk full. 0: no floor. Default 256MiB.
	MinFreeBytes Size `yaml:"min_free_bytes"`
}

// Ring bounds the recent frames kept per camera.
type Ring struct {
	// MaxBytes per camera. Default 256MiB, at least 1MiB (ringbuf's rule).
	// The most a ring holds: it cycles through about what MaxAge keeps,
	// so only that much of it becomes resident.
	MaxBytes Size `yaml:"max_bytes"`
	// MaxAge per camera. Default 30s.
	MaxAge Duration `yaml:"max_age"`
}

// Sheet is the contact-sheet recipe (DESIGN.md "Contact sheets"). Its
// rules are the sheet package's (sheet/recipe): besides each field's
// range, a sheet holds at most 400 tiles, and a sheet of 4:3 tiles must
// fit 16384 px a side and 16 Mi pixels (a 48 MiB canvas per camera),
// as must the 5-tile labeling sheet; a taller camera's tiles are
// letterboxed to stay within it.
type Sheet struct {
	// Preset picks the recipe's defaults: "published" (the recipe of
	// DESIGN.md: 224-px tiles, a 5x4 sheet is two 768-px VLM tiles, 516
	// tokens per 10 s) or "low-cost" (153-px tiles: one VLM tile, 258
	// tokens; docs/DESIGN.md "Contact sheets"). A tile_width other than the
	// published default wins over the preset. Default published.
	Preset string `yaml:"preset"`
	// Interval between sampled frames. Default 0.5s, at least 10ms.
	Interval Duration `yaml:"interval"`
	// TileWidth in pixels; height keeps the aspect ratio. Default 224,
	// at most 4096 (and see the pixel budget above).
	TileWidth int `yaml:"tile_width"`
	// Columns per sheet. Default 5.
	Columns int `yaml:"columns"`
	// Rows per sheet. Default 4; columns x rows at most 400.
	Rows int `yaml:"rows"`
	// Quality of the sheet JPEG, 1..100. Default 84.
	Quality int `yaml:"quality"`
	// Grace is the longest a tick waits for its frame (after its
	// window, interval/2) when no later frame has settled it. Default 1s.
	Grace Duration `yaml:"grace"`
	// WaitGrace makes every tick wait the whole grace, for cameras whose
	// frames can arrive out of order (several publishers on one topic).
	// Default false: a tick is final once a later frame arrived, about
	// one frame period after it.
	WaitGrace bool `yaml:"wait_grace"`
	// ShipLabelSheets makes, stores and ships each segment's labeling
	// sheet (recipe.Recipe.ShipLabelSheets). Default false: the robot
	// makes none; the cloud and the robot's readers compose them from
	// the contact sheets.
	ShipLabelSheets bool `yaml:"ship_label_sheets"`
}

// Recipe maps the section onto the sheet package's recipe (its rule
// set, applied by Validate, and what the builders run with).
func (s Sheet) Recipe() recipe.Recipe {
	r := recipe.Default()
	r.Interval, r.TileWidth, r.Columns, r.Rows = s.Interval.D(), s.TileWidth, s.Columns, s.Rows
	r.Quality, r.Grace, r.WaitGrace, r.ShipLabelSheets = s.Quality, s.Grace.D(), s.WaitGrace, s.ShipLabelSheets
	return r
}

// Uplink is the MQTT side.
type Uplink struct {
	// Broker is tcp://host:1883 or ssl://host:8883 (also mqtt://,
	// mqtts://, tls://; the port is required: mqttconn.BrokerURL's
	// rule). Default "": messages wait in the outbox until a broker is
	// configured.
	Broker string `yaml:"broker"`
	// TopicPrefix starts every topic: PREFIX/ROBOT_ID/... Default edged;
	// levels of letters, digits, '-', '_' and '.' joined by '/'. The
	// section's rules are the uplink package's (uplink.Config.Validate).
	TopicPrefix string `yaml:"topic_prefix"`
	// MaxPayload per MQTT message; larger bodies are chunked. Default
	// 128KiB, 1KiB..256MiB.
	MaxPayload Size `yaml:"max_payload"`
	// OutboxBytes bounds the outbox on disk. Default 2GiB, at least 1MiB.
	OutboxBytes Size `yaml:"outbox_bytes"`
	// ClientID for MQTT. Default "edged-" + robot_id.
	ClientID string `yaml:"client_id"`
	// Username for MQTT. Default "".
	Username string `yaml:"username"`
	// PasswordFile holds the MQTT password. Default "".
	PasswordFile string `yaml:"password_file"`
	// CAFile verifies the broker (ssl://). Default "": system roots.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile are the client certificate for mutual TLS.
	// Both or neither. Default "".
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// Bandwidth caps bytes per second sent. Default 0: unlimited; else at
	// least 1KiB.
	Bandwidth Size `yaml:"bandwidth"`
	// ResendAfter: an ended episode all of whose messages the broker
	// took, and that the receiver has not acknowledged complete this long
	// after, has its end manifest sent again (a receiver that lacks
	// pieces then asks for them); the robot keeps what it shipped of an
	// episode until it is acknowledged. Default 5m, at least 1s
	// (uplink.Config.ResendAfter).
	ResendAfter Duration `yaml:"resend_after"`
}

// HTTP is the metrics, health and status endpoint.
type HTTP struct {
	// Listen address. Default 127.0.0.1:9090; "" or "off" disables.
	Listen string `yaml:"listen"`
	// Pprof also serves Go's profiler on http.listen under /debug/pprof/
	// (CPU, heap, goroutines, traces), for a field engineer to see where
	// the robot's CPU goes. Default false: it exposes the process's
	// internals (command line, stacks, memory), so keep http.listen on
	// loopback (the default) and reach it through an SSH tunnel.
	Pprof bool `yaml:"pprof"`
}

// CaptureOptions tunes timestamping.
type CaptureOptions struct {
	// MaxStampSkew: a header stamp farther than this from the capture
	// clock is implausible and replaced by the receive time. Default 10m.
	MaxStampSkew Duration `yaml:"max_stamp_skew"`
}

// Load reads, parses, defaults and validates the file at path.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(b)
	if err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Parse parses YAML over the defaults, refusing unknown keys, and
// validates: a key written as 0 stays 0 (and is refused where 0 is
// invalid) rather than silently becoming the default. On a validation
// error the defaulted config is returned too.
func Parse(b []byte) (*Config, error) {
	c := Default()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parse: %w", err)
	}
	c.applyDerivedDefaults()
	return &c, c.Validate()
}

// Marshal renders the effective config as YAML.
func (c *Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }
