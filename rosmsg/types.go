package rosmsg

import "time"

// The Go types the typed decoders of both encodings fill. They are ROS1's
// shapes; a ROS 2 message is mapped onto them (its Header has no seq).

// Time is a ROS time: seconds and nanoseconds since the Unix epoch (or
// since the start of simulation under sim time).
type Time struct {
	Sec  uint32
	NSec uint32
}

// IsZero reports whether t is the zero time, which ROS uses for "unset".
func (t Time) IsZero() bool { return t.Sec == 0 && t.NSec == 0 }

// Time converts t to a time.Time. nsec values of 1e9 or more, which ROS
// does not normalize on the wire, carry into seconds.
func (t Time) Time() time.Time { return time.Unix(int64(t.Sec), int64(t.NSec)) }

// FromTime converts a time.Time to a ROS time (clamped to its range).
func FromTime(t time.Time) Time {
	s := t.Unix()
	if s < 0 {
		return Time{}
	}
	if s > 1<<32-1 {
		return Time{Sec: 1<<32 - 1, NSec: 999999999}
	}
	return Time{Sec: uint32(s), NSec: uint32(t.Nanosecond())}
}

// Duration is a ROS duration.
type Duration struct {
	Sec  int32
	NSec int32
}

// Duration converts d to a time.Duration.
func (d Duration) Duration() time.Duration {
	return time.Duration(d.Sec)*time.Second + time.Duration(d.NSec)
}

// Header is std_msgs/Header.
type Header struct {
	Seq     uint32
	Stamp   Time
	FrameID string
}

// Image is sensor_msgs/Image. Data aliases the decoded buffer.
type Image struct {
	Header      Header
	Height      uint32
	Width       uint32
	Encoding    string
	IsBigEndian bool
	Step        uint32
	Data        []byte
}

// CheckLayout reports whether the image's data holds Height rows of Step
// bytes, which every consumer of the pixels relies on.
func (img *Image) CheckLayout() bool {
	return uint64(img.Height)*uint64(img.Step) <= uint64(len(img.Data))
}

// CompressedImage is sensor_msgs/CompressedImage. Data aliases the
// decoded buffer.
type CompressedImage struct {
	Header Header
	Format string // e.g. "jpeg", "rgb8; jpeg compressed bgr8", "png"
	Data   []byte
}

// JointState is sensor_msgs/JointState.
type JointState struct {
	Header   Header
	Name     []string
	Position []float64
	Velocity []float64
	Effort   []float64
}

// String is std_msgs/String. Data holds the bytes as sent: ROS strings
// are not necessarily UTF-8.
type String struct {
	Data string
}

// Clock is rosgraph_msgs/Clock.
type Clock struct {
	Clock Time
}

// SmachContainerStatus is smach_msgs/SmachContainerStatus. LocalData is a
// Python pickle: bytes, kept exactly.
type SmachContainerStatus struct {
	Header        Header
	Path          string
	InitialStates []string
	ActiveStates  []string
	LocalData     string
	Info          string
}

// GoalID is actionlib_msgs/GoalID.
type GoalID struct {
	Stamp Time
	ID    string
}

// GoalStatus is actionlib_msgs/GoalStatus.
type GoalStatus struct {
	GoalID GoalID
	Status uint8
	Text   string
}

// The values of GoalStatus.Status.
const (
	GoalPending    uint8 = 0
	GoalActive     uint8 = 1
	GoalPreempted  uint8 = 2
	GoalSucceeded  uint8 = 3
	GoalAborted    uint8 = 4
	GoalRejected   uint8 = 5
	GoalPreempting uint8 = 6
	GoalRecalling  uint8 = 7
	GoalRecalled   uint8 = 8
	GoalLost       uint8 = 9
)

var goalStatusNames = [...]string{"PENDING", "ACTIVE", "PREEMPTED", "SUCCEEDED", "ABORTED",
	"REJECTED", "PREEMPTING", "RECALLING", "RECALLED", "LOST"}

// GoalStatusName returns the constant name of a GoalStatus.Status value
// (SUCCEEDED, ...), or "UNKNOWN".
func GoalStatusName(status uint8) string {
	if int(status) < len(goalStatusNames) {
		return goalStatusNames[status]
	}
	return "UNKNOWN"
}

// GoalStatusArray is actionlib_msgs/GoalStatusArray.
type GoalStatusArray struct {
	Header     Header
	StatusList []GoalStatus
}
