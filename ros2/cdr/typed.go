package cdr

import (
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

const hexDigits = "0123456789abcdef"

// The ROS 2 type names of the types with typed decoders.
const (
	TypeTime            = "builtin_interfaces/msg/Time"
	TypeHeader          = "std_msgs/msg/Header"
	TypeImage           = "sensor_msgs/msg/Image"
	TypeCompressedImage = "sensor_msgs/msg/CompressedImage"
	TypeJointState      = "sensor_msgs/msg/JointState"
	TypeString          = "std_msgs/msg/String"
	TypeClock           = "rosgraph_msgs/msg/Clock"
	TypeGoalStatusArray = "action_msgs/msg/GoalStatusArray"
)

// DecodeHeader decodes a std_msgs/msg/Header message into h (Seq, which
// ROS 2 dropped, is 0; a negative stamp second is the zero time).
func DecodeHeader(b []byte, h *msg.Header) error {
	c := rosmsg.NewCDR(b)
	c.Header(h)
	return c.End(TypeHeader)
}

// DecodeImage decodes a sensor_msgs/msg/Image into img without copying
// the pixels: img.Data aliases b. Strings equal to img's previous ones
// are reused, so a stream decoded into one Image allocates nothing.
func DecodeImage(b []byte, img *msg.Image) error {
	c := rosmsg.NewCDR(b)
	c.Image(img)
	return c.End(TypeImage)
}

// DecodeCompressedImage decodes a sensor_msgs/msg/CompressedImage into
// img without copying: img.Data aliases b.
func DecodeCompressedImage(b []byte, img *msg.CompressedImage) error {
	c := rosmsg.NewCDR(b)
	c.CompressedImage(img)
	return c.End(TypeCompressedImage)
}

// DecodeJointState decodes a sensor_msgs/msg/JointState into js. As in
// ros/msg, the slices are newly allocated (the caller may keep them) and
// names equal to js's previous names are reused.
func DecodeJointState(b []byte, js *msg.JointState) error {
	c := rosmsg.NewCDR(b)
	c.JointState(js)
	return c.End(TypeJointState)
}

// DecodeString decodes a std_msgs/msg/String into s.
func DecodeString(b []byte, s *msg.String) error {
	c := rosmsg.NewCDR(b)
	s.Data = c.Str(s.Data)
	return c.End(TypeString)
}

// DecodeClock decodes a rosgraph_msgs/msg/Clock into clock.
func DecodeClock(b []byte, clock *msg.Clock) error {
	c := rosmsg.NewCDR(b)
	clock.Clock = c.Time()
	return c.End(TypeClock)
}

// The values of ROS 2 action_msgs/GoalStatus.status.
const (
	StatusUnknown   int8 = 0
	StatusAccepted  int8 = 1
	StatusExecuting int8 = 2
	StatusCanceling int8 = 3
	StatusSucceeded int8 = 4
	StatusCanceled  int8 = 5
	StatusAborted   int8 = 6
)

// goalStatusToROS1 maps a ROS 2 goal status to the actionlib status with
// the same meaning, so the fsm's actionlib source reads both: accepted
// is pending, executing active, canceling preempting, canceled
// preempted; unknown (a goal the server forgot) is lost.
var goalStatusToROS1 = [...]uint8{
	StatusUnknown: msg.GoalLost, StatusAccepted: msg.GoalPending, StatusExecuting: msg.GoalActive,
	StatusCanceling: msg.GoalPreempting, StatusSucceeded: msg.GoalSucceeded,
	StatusCanceled: msg.GoalPreempted, StatusAborted: msg.GoalAborted,
}

// GoalStatusToROS1 returns the actionlib status of a ROS 2 goal status
// (see goalStatusToROS1); out of range is GoalLost.
func GoalStatusToROS1(s int8) uint8 {
	if s < 0 || int(s) >= len(goalStatusToROS1) {
		return msg.GoalLost
	}
	return goalStatusToROS1[s]
}

// goalStatusMinSize: uuid (16) + stamp (8) + status (1).
const goalStatusMinSize = 25

// DecodeGoalStatusArray decodes an action_msgs/msg/GoalStatusArray (the
// <action>/_action/status topic) into the actionlib struct the fsm
// reads: GoalID.ID is the goal's UUID in its canonical 8-4-4-4-12 hex
// form, GoalID.Stamp the goal's acceptance time, Status mapped by
// GoalStatusToROS1, Text empty (ROS 2 has none); Header is zero. The
// list is newly allocated; unchanged ids are reused.
func DecodeGoalStatusArray(b []byte, a *msg.GoalStatusArray) error {
	c := rosmsg.NewCDR(b)
	a.Header = msg.Header{}
	prev := c.GoalStatusList(a, goalStatusMinSize)
	for i := range a.StatusList {
		var p msg.GoalStatus
		if i < len(prev) {
			p = prev[i]
		}
		s := &a.StatusList[i]
		s.GoalID.ID = uuidString(c.Take(16, "uuid"), p.GoalID.ID)
		s.GoalID.Stamp = c.Time()
		s.Status = GoalStatusToROS1(int8(c.U8()))
	}
	return c.End(TypeGoalStatusArray)
}

// uuidString formats a 16-byte UUID as 8-4-4-4-12 hex, reusing prev
// when it is the same.
func uuidString(u []byte, prev string) string {
	if len(u) != 16 {
		return ""
	}
	var buf [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf[j] = '-'
			j++
		}
		buf[j], buf[j+1] = hexDigits[c>>4], hexDigits[c&15]
		j += 2
	}
	if string(buf[:]) == prev {
		return prev
	}
	return string(buf[:])
}
