package capture

import "time"

// StampSource says where an event's Stamp came from.
type StampSource uint8

const (
	// StampHeader: the message's header.stamp, set and plausible.
	StampHeader StampSource = iota
	// StampReceive: the time edged received the message (header stamp
	// missing or implausible), on the capture clock (wall or /clock).
	StampReceive
)

func (s StampSource) String() string {
	switch s {
	case StampHeader:
		return "header"
	case StampReceive:
		return "receive"
	default:
		return "unknown"
	}
}

// FrameFormat says how a Frame's Data is encoded.
type FrameFormat uint8

const (
	// FormatRaw: uncompressed pixels of a sensor_msgs/Image; Encoding
	// holds the ROS encoding (rgb8, bgr8, mono8, bayer_rggb8, ...) and
	// Width, Height and Step describe the layout.
	FormatRaw FrameFormat = iota
	// FormatJPEG: a JPEG bitstream (sensor_msgs/CompressedImage).
	FormatJPEG
	// FormatPNG: a PNG bitstream (sensor_msgs/CompressedImage).
	FormatPNG
)

func (f FrameFormat) String() string {
	switch f {
	case FormatRaw:
		return "raw"
	case FormatJPEG:
		return "jpeg"
	case FormatPNG:
		return "png"
	default:
		return "unknown"
	}
}

// MaxFrameIDBytes caps a frame's header.frame_id: a longer one is no
// TF frame name but hostile or broken input, and every frame held in a
// ring keeps its id, so it is dropped (the Frame's FrameID is empty) and
// counted rather than kept.
const MaxFrameIDBytes = 256

// Frame is one camera image. Data is borrowed: it stays valid only until
// Release is called, and the receiver must call Release exactly once when
// it has copied what it needs (ringbuf copies it into its own arena).
type Frame struct {
	Topic       string
	Stamp       time.Time // the one clock (see StampSource)
	Received    time.Time // capture clock at receipt
	StampSource StampSource
	Format      FrameFormat
	Encoding    string // raw: ROS encoding; compressed: the message's format field
	FrameID     string // header.frame_id as received ("" when over MaxFrameIDBytes: TopicStats.FrameIDDrops)
	Width       int    // raw only (compressed: 0 until decoded)
	Height      int    // raw only
	Step        int    // raw only: bytes per row
	BigEndian   bool   // raw only: for 16-bit encodings
	Data        []byte

	release  func()
	releaser Releaser
}

// Releaser returns a buffer to its pool; *ros.Message is one.
type Releaser interface {
	Release()
}

// NewFrameReleaser returns a Frame whose Release calls r.Release. Unlike
// NewFrame with a method value, it allocates nothing: capture uses it to
// hand each message's buffer to the sink.
func NewFrameReleaser(f Frame, r Releaser) Frame {
	f.releaser = r
	return f
}

// NewFrame returns a Frame whose Release calls release (may be nil).
func NewFrame(f Frame, release func()) Frame {
	f.release = release
	return f
}

// Release returns the frame's buffer to its pool. Safe to call on a frame
// without a pool; calling it twice is a bug in the caller.
func (f *Frame) Release() {
	if f.release != nil {
		f.release()
		f.release = nil
	}
	if f.releaser != nil {
		f.releaser.Release()
		f.releaser = nil
	}
	f.Data = nil
}

// JointSample is one sensor_msgs/JointState. Its slices are owned by the
// receiver (capture allocates them per message; joint messages are small).
type JointSample struct {
	Topic       string
	Stamp       time.Time
	Received    time.Time
	StampSource StampSource
	Names       []string
	Position    []float64
	Velocity    []float64
	Effort      []float64
}

// StateEvent is one message from an FSM source topic. Value is the decoded
// message: *msg.String, *msg.SmachContainerStatus, *msg.GoalStatusArray,
// or a dynamic msg.Value for the field source. The receiver owns it.
type StateEvent struct {
	Topic       string
	Type        string // ROS type, e.g. std_msgs/String
	Stamp       time.Time
	Received    time.Time
	StampSource StampSource
	Value       any
	// Bytes is the most memory Value may hold: the message's size for a
	// typed decode, msg.DecodeBudget of it for a dynamic one. A queue
	// holding events charges it against its byte budget.
	Bytes int
}
