package cdr

import "github.com/edged-robotics/edged/ros/msg"

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

// time reads a builtin_interfaces/Time (int32 sec, uint32 nanosec) as a
// msg.Time; a negative sec, which a ROS1 time cannot hold, is zero
// (unset): the caller then stamps with the receive time.
func (d *dec) time() msg.Time {
	sec := int32(d.u32())
	nsec := d.u32()
	if sec < 0 {
		return msg.Time{}
	}
	return msg.Time{Sec: uint32(sec), NSec: nsec}
}

// header reads a ROS 2 std_msgs/Header (stamp, frame_id) into the ROS1
// struct; Seq, which ROS 2 dropped, is 0.
func (d *dec) header(h *msg.Header) {
	h.Seq = 0
	h.Stamp = d.time()
	h.FrameID = d.str(h.FrameID)
}

// DecodeHeader decodes a std_msgs/msg/Header message into h.
func DecodeHeader(b []byte, h *msg.Header) error {
	var d dec
	d.start(b)
	d.header(h)
	return d.end(TypeHeader)
}

// DecodeImage decodes a sensor_msgs/msg/Image into img without copying
// the pixels: img.Data aliases b. Strings equal to img's previous ones
// are reused, so a stream decoded into one Image allocates nothing.
func DecodeImage(b []byte, img *msg.Image) error {
	var d dec
	d.start(b)
	d.header(&img.Header)
	img.Height = d.u32()
	img.Width = d.u32()
	img.Encoding = d.str(img.Encoding)
	img.IsBigEndian = d.u8() != 0
	img.Step = d.u32()
	img.Data = d.octets("image data")
	return d.end(TypeImage)
}

// DecodeCompressedImage decodes a sensor_msgs/msg/CompressedImage into
// img without copying: img.Data aliases b.
func DecodeCompressedImage(b []byte, img *msg.CompressedImage) error {
	var d dec
	d.start(b)
	d.header(&img.Header)
	img.Format = d.str(img.Format)
	img.Data = d.octets("compressed data")
	return d.end(TypeCompressedImage)
}

// DecodeJointState decodes a sensor_msgs/msg/JointState into js. As in
// ros/msg, the slices are newly allocated (the caller may keep them) and
// names equal to js's previous names are reused.
func DecodeJointState(b []byte, js *msg.JointState) error {
	var d dec
	d.start(b)
	d.header(&js.Header)
	js.Name = d.strs(js.Name)
	js.Position = d.f64s()
	js.Velocity = d.f64s()
	js.Effort = d.f64s()
	return d.end(TypeJointState)
}

// DecodeString decodes a std_msgs/msg/String into s.
func DecodeString(b []byte, s *msg.String) error {
	var d dec
	d.start(b)
	s.Data = d.str(s.Data)
	return d.end(TypeString)
}

// DecodeClock decodes a rosgraph_msgs/msg/Clock into c.
func DecodeClock(b []byte, c *msg.Clock) error {
	var d dec
	d.start(b)
	c.Clock = d.time()
	return d.end(TypeClock)
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
	var d dec
	d.start(b)
	a.Header = msg.Header{}
	prev := a.StatusList
	n := d.count(goalStatusMinSize, 0, "status_list")
	a.StatusList = nil
	if n > 0 {
		a.StatusList = make([]msg.GoalStatus, n)
	}
	for i := range a.StatusList {
		var p msg.GoalStatus
		if i < len(prev) {
			p = prev[i]
		}
		s := &a.StatusList[i]
		s.GoalID.ID = uuidString(d.take(16, "uuid"), p.GoalID.ID)
		s.GoalID.Stamp = d.time()
		s.Status = GoalStatusToROS1(int8(d.u8()))
	}
	return d.end(TypeGoalStatusArray)
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

// strs reads a string sequence; a string equal to prev[i] reuses it.
func (d *dec) strs(prev []string) []string {
	n := d.count(4, 0, "string[]")
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		var p string
		if i < len(prev) {
			p = prev[i]
		}
		out[i] = d.str(p)
	}
	if d.err != nil {
		return nil
	}
	return out
}

// f64s reads a float64 sequence into a new slice.
func (d *dec) f64s() []float64 {
	n := d.count(8, 0, "float64[]")
	if n == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = d.f64()
	}
	if d.err != nil {
		return nil
	}
	return out
}
