//msgp:limit arrays:67108864 maps:64

package wire

//go:generate msgp -file wire.go -o wire_gen.go -tests=false

// Version is the envelope format version this package writes and accepts.
const Version = 1

// Message kinds; each is also the last element of its MQTT topic
// PREFIX/ROBOT/KIND.
const (
	KindEpisodeStart = "episode_start" // body: Manifest
	KindEpisodeEnd   = "episode_end"   // body: Manifest
	KindSegment      = "segment"       // body: Segment
	KindSnippet      = "snippet"       // body: zstd(msgpack Snippet)
	KindSheet        = "sheet"         // body: SheetBody
	KindLabelSheet   = "label_sheet"   // body: SheetBody
	KindStatus       = "status"        // body: Status (retained)
	KindClip         = "clip"          // body: Clip (an incident clip's announcement)
)

// Kinds lists every kind, for validation and subscriptions.
var Kinds = []string{KindEpisodeStart, KindEpisodeEnd, KindSegment, KindSnippet, KindSheet, KindLabelSheet, KindStatus, KindClip}

// Envelope is one MQTT payload. A body larger than the publisher's
// maximum payload is split into Chunks envelopes that share ID, Kind,
// Seq, Size and CRC; Chunk numbers them from 0. An unchunked message has
// Chunks 1 and Chunk 0.
type Envelope struct {
	Version uint8  `msg:"v"`
	ID      string `msg:"id"`      // idempotency key: 32 lowercase hex digits
	Robot   string `msg:"robot"`   // robot_id
	Episode string `msg:"episode"` // episode id; "" for status
	Kind    string `msg:"kind"`
	Seq     uint64 `msg:"seq"`     // order within (episode, kind)
	Created int64  `msg:"created"` // unix nanoseconds, robot wall clock
	Chunk   uint32 `msg:"chunk"`
	Chunks  uint32 `msg:"chunks"`
	Size    uint32 `msg:"size"` // bytes of the whole body
	CRC     uint32 `msg:"crc"`  // CRC-32C (Castagnoli) of the whole body
	Body    []byte `msg:"body"` // the whole body, or this chunk's part
}

// Manifest is the body of episode_start and episode_end: the episode's
// metadata. Times are unix nanoseconds of ROS time (0: unset).
type Manifest struct {
	ID          string `msg:"id"`
	Robot       string `msg:"robot"`
	Name        string `msg:"name"`
	Instruction string `msg:"instruction"`
	Start       int64  `msg:"start"`
	End         int64  `msg:"end"`
	Closed      bool   `msg:"closed"`
	Outcome     string `msg:"outcome"`
	EndReason   string `msg:"end_reason"`
	Segments    int64  `msg:"segments"`
	Transitions int64  `msg:"transitions"`
	Created     int64  `msg:"created"` // wall clock
	// Produced is what the robot made of the episode per camera, sent
	// in episode_end (empty in episode_start and from older robots): a
	// receiver holding all of it, and every segment, holds the episode
	// complete.
	Produced []CameraCount `msg:"produced,limit=1024"`
	// Verdicts of the robot's trace checks, sent in episode_end (empty
	// in episode_start, from robots without checks and from older ones).
	Verdicts []Verdict `msg:"verdicts,limit=1024"`
}

// Clip is the body of a clip message: an incident clip of the episode
// exists, and where. The robot sends it when the clip is written (Where
// "robot": a field engineer fetches it there) and again once it is
// uploaded (Where: its object store URL); a receiver lists it in the
// episode's manifest. Bytes 0 and SHA256 "": not stated (an upload's
// announcement after the local file is gone).
type Clip struct {
	Name   string `msg:"name"`   // the file's base name (episode.ClipName)
	Kind   string `msg:"kind"`   // its trigger kind
	At     int64  `msg:"at"`     // trigger time, unix ns (stream clock)
	Bytes  int64  `msg:"bytes"`  // the file's size
	SHA256 string `msg:"sha256"` // lowercase hex
	Where  string `msg:"where"`  // "robot", or an s3:// URL
}

// Verdict is one trace check's outcome over the episode (SAT when Sat)
// and the witness that decided it.
type Verdict struct {
	Check   string `msg:"check"`
	Sat     bool   `msg:"sat"`
	Witness string `msg:"witness"`
}

// CameraCount is what the robot made of an episode for one camera.
type CameraCount struct {
	Camera      string `msg:"camera"` // the camera's directory name (episode.CameraDir of its topic)
	Sheets      int64  `msg:"sheets"`
	LabelSheets int64  `msg:"label_sheets"`
	Snippets    int64  `msg:"snippets"`
	// The VLM tokens of the camera's contact sheets and labeling sheets
	// (the sum of their metadata's vlm_tokens); 0 from older robots.
	SheetTokens int64 `msg:"sheet_tokens"`
	LabelTokens int64 `msg:"label_tokens"`
	// LastSheet is the highest contact sheet index (indexes skip when the
	// clock jumps ahead), so a receiver knows which to ask for; 0 from
	// older robots (then 1..Sheets).
	LastSheet int64 `msg:"last_sheet"`
}

// Segment is the body of a segment message: one closed subtask.
type Segment struct {
	Index    int64    `msg:"index"`
	Start    int64    `msg:"start"` // unix ns, ROS time
	End      int64    `msg:"end"`
	StartSec float64  `msg:"start_sec"` // seconds since the episode start
	EndSec   float64  `msg:"end_sec"`
	Label    string   `msg:"label"`
	Path     string   `msg:"path"`
	Source   string   `msg:"source"`
	Kind     string   `msg:"kind"`
	Outcome  string   `msg:"outcome"`
	GoalID   string   `msg:"goal_id"`
	Args     []string `msg:"args,omitempty"` // actionlib goal fields
}

// SheetBody is the body of sheet and label_sheet: the JPEG and its
// metadata as JSON (the sheet.Meta schema, written by the sink as is).
type SheetBody struct {
	Camera  string `msg:"camera"`
	Index   int64  `msg:"index"`              // sheet index (1-based); label sheets: segment index
	Segment int64  `msg:"segment"`            // label sheets: segment index; sheets: -1
	Name    string `msg:"name"`               // base file name, e.g. sheet-0001
	Meta    []byte `msg:"meta,limit=1048576"` // JSON
	JPEG    []byte `msg:"jpeg"`
}

// Snippet is the robot state over a sheet's window, sent zstd-compressed
// as the body of a snippet message. It carries observations only: never
// the FSM's states or transitions (the ground truth, sent as segments).
// Snippets of older robots had "states" and "transitions" keys; decoding
// skips them, as it skips every unknown key.
type Snippet struct {
	Episode      string `msg:"episode"`
	Camera       string `msg:"camera"`
	SheetIndex   int64  `msg:"sheet_index"`
	EpisodeStart int64  `msg:"episode_start"` // unix ns
	Interval     int64  `msg:"interval"`      // ns between ticks
	FirstTick    int64  `msg:"first_tick"`
	LastTick     int64  `msg:"last_tick"`
	// Names of the joints, once; every sample's arrays follow this order.
	Names   []string      `msg:"names,limit=4096"`
	Samples []JointSample `msg:"samples,limit=65536"`
}

// PackedSnippet is a Snippet as EncodeSnippet writes it since format 2
// (snippetpack.go): samples in columns, times as deltas, values as
// float32 series packed for zstd. A format 1 snippet (a Snippet map)
// decodes into it with Format 0, which is how DecodeSnippet tells them
// apart.
type PackedSnippet struct {
	Format       int64    `msg:"format"`
	Episode      string   `msg:"episode"`
	Camera       string   `msg:"camera"`
	SheetIndex   int64    `msg:"sheet_index"`
	EpisodeStart int64    `msg:"episode_start"`
	Interval     int64    `msg:"interval"`
	FirstTick    int64    `msg:"first_tick"`
	LastTick     int64    `msg:"last_tick"`
	Names        []string `msg:"names,limit=4096"`
	Ticks        []int64  `msg:"ticks,limit=65536"`
	Stamps       []int64  `msg:"stamps,limit=65536"`
	Sources      []int64  `msg:"sources,limit=65536"`
	Values       []byte   `msg:"values"`
}

// JointSample is the joint state at one time. Missing values are NaN.
type JointSample struct {
	Tick     int64     `msg:"tick"`   // the sheet tick, or -1 for a rate sample
	Stamp    int64     `msg:"stamp"`  // the time sampled (unix ns)
	Source   int64     `msg:"source"` // stamp of the joint message used (unix ns; 0: none)
	Position []float64 `msg:"position,limit=4096"`
	Velocity []float64 `msg:"velocity,limit=4096"`
	Effort   []float64 `msg:"effort,limit=4096"`
}

// Status is the retained status of a robot (kind status).
//
// Statuses may reach a receiver out of order (sinks sharing a
// subscription, redeliveries), and a robot's last will is composed
// when it connects, so its Time is older than every status of that
// connection. Session and Final order them (Newer): a later session
// wins, and within one session its final word (the will, or a clean
// shutdown's offline) wins, else the later Time. Statuses of robots
// from before these fields have Session 0 and cannot be ordered (their
// will is stamped at connect, every connection has session 0): each
// supersedes whatever is held, as every status did before (ordered by
// Time, a crashed robot's will was never taken; ranked below any
// session, a robot rolled back to such a version was never shown
// again).
type Status struct {
	State        string `msg:"state"` // online | offline
	Version      string `msg:"version"`
	Backlog      int64  `msg:"backlog"`       // messages in the outbox
	BacklogBytes int64  `msg:"backlog_bytes"` // bytes in the outbox
	Evicted      int64  `msg:"evicted"`       // sheets evicted since start
	Time         int64  `msg:"time"`          // unix ns
	Session      int64  `msg:"session"`       // unix ns the robot's connection began (its will's too); 0: unknown
	Final        bool   `msg:"final"`         // the session's last word: its will, or a clean shutdown
}

// Newer reports whether s supersedes t: a later Session, or in one
// session a Final over a status that is not, or else a later Time; a
// status without a Session always does.
func (s Status) Newer(t Status) bool {
	switch {
	case s.Session == 0:
		return true
	case s.Session != t.Session:
		return s.Session > t.Session
	case s.Final != t.Final:
		return s.Final
	}
	return s.Time > t.Time
}

// AckUploaded ends the topic PREFIX/ROBOT/ack/uploaded on which a
// receiver acknowledges (QoS 1, not retained) each episode it holds
// complete; the robot then marks it uploaded. A receiver's subscription
// PREFIX/+/+ does not match it.
const AckUploaded = "ack/uploaded"

// AckTopic is the topic of robot's acknowledgements.
func AckTopic(prefix, robot string) string { return prefix + "/" + robot + "/" + AckUploaded }

// Ack is the payload of an acknowledgement: this episode of this robot
// is held complete by the receiver.
type Ack struct {
	Robot   string `msg:"robot"`
	Episode string `msg:"episode"`
	Time    int64  `msg:"time"` // receiver wall clock, unix ns
}

// AckRepair ends the topic PREFIX/ROBOT/ack/repair on which a receiver
// asks a robot (QoS 1, not retained) for the messages of an ended
// episode it lacks; the robot publishes them again, unchanged (same
// ids). Robots before repair subscribe to AckUploaded only and never
// see it.
const AckRepair = "ack/repair"

// RepairTopic is the topic of robot's repair requests.
func RepairTopic(prefix, robot string) string { return prefix + "/" + robot + "/" + AckRepair }

// Repair is the payload of a repair request: the receiver holds the end
// manifest of this episode of this robot but not the pieces in Missing
// (Piece.String). More: it lacks more than MaxRepairPieces, and asks for
// the rest once these arrived. Its keys are not an Ack's: a robot of a
// version before repair that still gets one (rolled back, its session
// subscribed) refuses it as an acknowledgement without a robot, rather
// than mark an incomplete episode uploaded.
type Repair struct {
	Robot   string   `msg:"lacking_robot"`
	Episode string   `msg:"lacking_episode"`
	Time    int64    `msg:"asked"` // receiver wall clock, unix ns
	Missing []string `msg:"missing,limit=1024"`
	More    bool     `msg:"more"`
}
