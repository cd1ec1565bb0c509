package msg

import "time"

// The md5sums of the types with typed decoders, as ROS computes them.
const (
	MD5Header               = "2176decaecbce78abc3b96ef049fabed"
	MD5Image                = "060021388200f6f0f447d0fcd9c64743"
	MD5CompressedImage      = "8f7a12909da2c9d3332d540a0977563f"
	MD5JointState           = "3066dcd76a6cfaef579bd0f34173e9fd"
	MD5String               = "992ce8a1687cec8c8bd883ec73ca41d1"
	MD5Clock                = "a9c97c1d230cfc112e270351a944ee47"
	MD5SmachContainerStatus = "5ba2bb79ac19e3842d562a191f2a675b"
	MD5GoalStatusArray      = "8b2b82f13216d0a8ea88bd3af735e619"
)

// The ROS type names of the types with typed decoders.
const (
	TypeHeader               = "std_msgs/Header"
	TypeImage                = "sensor_msgs/Image"
	TypeCompressedImage      = "sensor_msgs/CompressedImage"
	TypeJointState           = "sensor_msgs/JointState"
	TypeString               = "std_msgs/String"
	TypeClock                = "rosgraph_msgs/Clock"
	TypeSmachContainerStatus = "smach_msgs/SmachContainerStatus"
	TypeGoalStatusArray      = "actionlib_msgs/GoalStatusArray"
)

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

func (d *dec) header(h *Header) {
	h.Seq = d.u32()
	h.Stamp = d.time()
	h.FrameID = d.str(h.FrameID)
}

// DecodeHeader decodes a std_msgs/Header message into h.
func DecodeHeader(b []byte, h *Header) error {
	d := dec{b: b}
	d.header(h)
	return d.end(TypeHeader)
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

// DecodeImage decodes a sensor_msgs/Image into img without copying the
// pixels: img.Data is a sub-slice of b. Strings equal to img's previous
// ones are reused, so a stream decoded into one Image allocates nothing.
// It checks the wire format only; CheckLayout checks the geometry.
func DecodeImage(b []byte, img *Image) error {
	d := dec{b: b}
	d.header(&img.Header)
	img.Height = d.u32()
	img.Width = d.u32()
	img.Encoding = d.str(img.Encoding)
	img.IsBigEndian = d.u8() != 0
	img.Step = d.u32()
	img.Data = d.bytes("image data")
	return d.end(TypeImage)
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

// DecodeCompressedImage decodes a sensor_msgs/CompressedImage into img
// without copying: img.Data is a sub-slice of b.
func DecodeCompressedImage(b []byte, img *CompressedImage) error {
	d := dec{b: b}
	d.header(&img.Header)
	img.Format = d.str(img.Format)
	img.Data = d.bytes("compressed data")
	return d.end(TypeCompressedImage)
}

// JointState is sensor_msgs/JointState.
type JointState struct {
	Header   Header
	Name     []string
	Position []float64
	Velocity []float64
	Effort   []float64
}

// DecodeJointState decodes a sensor_msgs/JointState into js. The slices
// are newly allocated (the caller may keep them); names equal to js's
// previous names are reused instead of allocated again.
func DecodeJointState(b []byte, js *JointState) error {
	d := dec{b: b}
	d.header(&js.Header)
	js.Name = d.strs(js.Name)
	js.Position = d.f64s()
	js.Velocity = d.f64s()
	js.Effort = d.f64s()
	return d.end(TypeJointState)
}

// String is std_msgs/String. Data holds the bytes as sent: ROS strings
// are not necessarily UTF-8.
type String struct {
	Data string
}

// DecodeString decodes a std_msgs/String into s.
func DecodeString(b []byte, s *String) error {
	d := dec{b: b}
	s.Data = d.str(s.Data)
	return d.end(TypeString)
}

// Clock is rosgraph_msgs/Clock.
type Clock struct {
	Clock Time
}

// DecodeClock decodes a rosgraph_msgs/Clock into c.
func DecodeClock(b []byte, c *Clock) error {
	d := dec{b: b}
	c.Clock = d.time()
	return d.end(TypeClock)
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

// DecodeSmachContainerStatus decodes a smach_msgs/SmachContainerStatus
// into s; slices are newly allocated, unchanged strings reused.
func DecodeSmachContainerStatus(b []byte, s *SmachContainerStatus) error {
	d := dec{b: b}
	d.header(&s.Header)
	s.Path = d.str(s.Path)
	s.InitialStates = d.strs(s.InitialStates)
	s.ActiveStates = d.strs(s.ActiveStates)
	s.LocalData = d.str(s.LocalData)
	s.Info = d.str(s.Info)
	return d.end(TypeSmachContainerStatus)
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

// goalStatusMinSize: time (8) + id length (4) + status (1) + text length (4).
const goalStatusMinSize = 17

// DecodeGoalStatusArray decodes an actionlib_msgs/GoalStatusArray into a;
// the list is newly allocated.
func DecodeGoalStatusArray(b []byte, a *GoalStatusArray) error {
	d := dec{b: b}
	d.header(&a.Header)
	prev := a.StatusList
	n := d.count(goalStatusMinSize, "status_list")
	a.StatusList = nil
	if n > 0 {
		a.StatusList = make([]GoalStatus, n)
	}
	for i := range a.StatusList {
		var p GoalStatus
		if i < len(prev) {
			p = prev[i]
		}
		s := &a.StatusList[i]
		s.GoalID.Stamp = d.time()
		s.GoalID.ID = d.str(p.GoalID.ID)
		s.Status = d.u8()
		s.Text = d.str(p.Text)
	}
	return d.end(TypeGoalStatusArray)
}
