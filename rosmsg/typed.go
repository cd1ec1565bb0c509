package rosmsg

// The typed readers shared by both encodings: the same fields in the
// same order; what differs (a time's sign, a header's seq, alignment,
// byte order, a string's NUL) is the Cursor's.

// Time reads a ROS1 time (uint32 sec, nsec) or a ROS 2
// builtin_interfaces/Time (int32 sec, uint32 nanosec); a negative ROS 2
// sec, which a ROS1 time cannot hold, is zero (unset): the caller then
// stamps with the receive time.
func (c *Cursor) Time() Time { return c.time(c.U32(), c.U32()) }

// time makes a Time of the two halves read (inlined, so Header reads a
// stamp without one more call).
func (c *Cursor) time(sec, nsec uint32) Time {
	if c.cdr && int32(sec) < 0 {
		return Time{}
	}
	return Time{Sec: sec, NSec: nsec}
}

// Duration reads a ROS1 duration.
func (c *Cursor) Duration() Duration { return Duration{Sec: int32(c.U32()), NSec: int32(c.U32())} }

// Header reads a std_msgs/Header into h; a ROS 2 header has no seq (0).
func (c *Cursor) Header(h *Header) {
	h.Seq = 0
	if !c.cdr {
		h.Seq = c.U32()
	}
	h.Stamp = c.time(c.U32(), c.U32())
	h.FrameID = c.Str(h.FrameID)
}

// Image reads a sensor_msgs/Image into img; img.Data aliases the message.
func (c *Cursor) Image(img *Image) {
	c.Header(&img.Header)
	img.Height = c.U32()
	img.Width = c.U32()
	img.Encoding = c.Str(img.Encoding)
	img.IsBigEndian = c.U8() != 0
	img.Step = c.U32()
	img.Data = c.Bytes("image data")
}

// CompressedImage reads a sensor_msgs/CompressedImage into img; img.Data
// aliases the message.
func (c *Cursor) CompressedImage(img *CompressedImage) {
	c.Header(&img.Header)
	img.Format = c.Str(img.Format)
	img.Data = c.Bytes("compressed data")
}

// JointState reads a sensor_msgs/JointState into js: new slices, names
// equal to js's previous names reused.
func (c *Cursor) JointState(js *JointState) {
	c.Header(&js.Header)
	js.Name = c.Strs(js.Name)
	js.Position = c.F64s()
	js.Velocity = c.F64s()
	js.Effort = c.F64s()
}

// GoalStatusList reads a status list's count and allocates it (nil when
// empty), returning the previous list whose strings the elements may
// reuse; minSize is one element's least wire size.
func (c *Cursor) GoalStatusList(a *GoalStatusArray, minSize int) []GoalStatus {
	prev := a.StatusList
	n := c.Count(minSize, 0, "status_list")
	a.StatusList = nil
	if n > 0 {
		a.StatusList = make([]GoalStatus, n)
	}
	return prev
}
