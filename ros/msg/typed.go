package msg

import "github.com/edged-robotics/edged/rosmsg"

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

// The Go types the typed decoders fill are rosmsg's (ROS 2's typed
// decoders in ros2/cdr fill the same ones).
type (
	// Time is a ROS time: seconds and nanoseconds since the Unix epoch
	// (or since the start of simulation under sim time).
	Time = rosmsg.Time
	// Duration is a ROS duration.
	Duration = rosmsg.Duration
	// Header is std_msgs/Header.
	Header = rosmsg.Header
	// Image is sensor_msgs/Image. Data aliases the decoded buffer.
	Image = rosmsg.Image
	// CompressedImage is sensor_msgs/CompressedImage. Data aliases the
	// decoded buffer.
	CompressedImage = rosmsg.CompressedImage
	// JointState is sensor_msgs/JointState.
	JointState = rosmsg.JointState
	// String is std_msgs/String (bytes as sent, not necessarily UTF-8).
	String = rosmsg.String
	// Clock is rosgraph_msgs/Clock.
	Clock = rosmsg.Clock
	// SmachContainerStatus is smach_msgs/SmachContainerStatus.
	SmachContainerStatus = rosmsg.SmachContainerStatus
	// GoalID is actionlib_msgs/GoalID.
	GoalID = rosmsg.GoalID
	// GoalStatus is actionlib_msgs/GoalStatus.
	GoalStatus = rosmsg.GoalStatus
	// GoalStatusArray is actionlib_msgs/GoalStatusArray.
	GoalStatusArray = rosmsg.GoalStatusArray
)

// The values of GoalStatus.Status.
const (
	GoalPending    = rosmsg.GoalPending
	GoalActive     = rosmsg.GoalActive
	GoalPreempted  = rosmsg.GoalPreempted
	GoalSucceeded  = rosmsg.GoalSucceeded
	GoalAborted    = rosmsg.GoalAborted
	GoalRejected   = rosmsg.GoalRejected
	GoalPreempting = rosmsg.GoalPreempting
	GoalRecalling  = rosmsg.GoalRecalling
	GoalRecalled   = rosmsg.GoalRecalled
	GoalLost       = rosmsg.GoalLost
)

// FromTime converts a time.Time to a ROS time (clamped to its range).
var FromTime = rosmsg.FromTime

// GoalStatusName returns the constant name of a GoalStatus.Status value
// (SUCCEEDED, ...), or "UNKNOWN".
func GoalStatusName(status uint8) string { return rosmsg.GoalStatusName(status) }

// DecodeHeader decodes a std_msgs/Header message into h.
func DecodeHeader(b []byte, h *Header) error {
	c := rosmsg.NewROS1(b)
	c.Header(h)
	return c.End(TypeHeader)
}

// DecodeImage decodes a sensor_msgs/Image into img without copying the
// pixels: img.Data is a sub-slice of b. Strings equal to img's previous
// ones are reused, so a stream decoded into one Image allocates nothing.
// It checks the wire format only; CheckLayout checks the geometry.
func DecodeImage(b []byte, img *Image) error {
	c := rosmsg.NewROS1(b)
	c.Image(img)
	return c.End(TypeImage)
}

// DecodeCompressedImage decodes a sensor_msgs/CompressedImage into img
// without copying: img.Data is a sub-slice of b.
func DecodeCompressedImage(b []byte, img *CompressedImage) error {
	c := rosmsg.NewROS1(b)
	c.CompressedImage(img)
	return c.End(TypeCompressedImage)
}

// DecodeJointState decodes a sensor_msgs/JointState into js. The slices
// are newly allocated (the caller may keep them); names equal to js's
// previous names are reused instead of allocated again.
func DecodeJointState(b []byte, js *JointState) error {
	c := rosmsg.NewROS1(b)
	c.JointState(js)
	return c.End(TypeJointState)
}

// DecodeString decodes a std_msgs/String into s.
func DecodeString(b []byte, s *String) error {
	c := rosmsg.NewROS1(b)
	s.Data = c.Str(s.Data)
	return c.End(TypeString)
}

// DecodeClock decodes a rosgraph_msgs/Clock into c.
func DecodeClock(b []byte, clock *Clock) error {
	c := rosmsg.NewROS1(b)
	clock.Clock = c.Time()
	return c.End(TypeClock)
}

// DecodeSmachContainerStatus decodes a smach_msgs/SmachContainerStatus
// into s; slices are newly allocated, unchanged strings reused.
func DecodeSmachContainerStatus(b []byte, s *SmachContainerStatus) error {
	c := rosmsg.NewROS1(b)
	c.Header(&s.Header)
	s.Path = c.Str(s.Path)
	s.InitialStates = c.Strs(s.InitialStates)
	s.ActiveStates = c.Strs(s.ActiveStates)
	s.LocalData = c.Str(s.LocalData)
	s.Info = c.Str(s.Info)
	return c.End(TypeSmachContainerStatus)
}

// goalStatusMinSize: time (8) + id length (4) + status (1) + text length (4).
const goalStatusMinSize = 17

// DecodeGoalStatusArray decodes an actionlib_msgs/GoalStatusArray into a;
// the list is newly allocated.
func DecodeGoalStatusArray(b []byte, a *GoalStatusArray) error {
	c := rosmsg.NewROS1(b)
	c.Header(&a.Header)
	prev := c.GoalStatusList(a, goalStatusMinSize)
	for i := range a.StatusList {
		var p GoalStatus
		if i < len(prev) {
			p = prev[i]
		}
		s := &a.StatusList[i]
		s.GoalID.Stamp = c.Time()
		s.GoalID.ID = c.Str(p.GoalID.ID)
		s.Status = c.U8()
		s.Text = c.Str(p.Text)
	}
	return c.End(TypeGoalStatusArray)
}
