package capture

import (
	"bytes"
	"strings"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// handleCamera turns an Image or CompressedImage into a Frame whose Data
// aliases the message buffer; the Frame's Release releases the message.
func (p *pipeline) handleCamera(t *topic, m *ros.Message) {
	var f Frame
	var header msg.Header
	c := codecOf(m)
	switch {
	case c == nil:
		t.unknownType.Add(1)
		p.release(m)
		return
	case typeIs(m, msg.TypeImage, msg.MD5Image):
		if err := c.image(m.Data, &t.img); err != nil || !t.img.CheckLayout() || t.img.Width == 0 || t.img.Height == 0 {
			t.decodeErrors.Add(1)
			p.release(m)
			return
		}
		img := &t.img
		f = Frame{Format: FormatRaw, Encoding: img.Encoding, Width: int(img.Width), Height: int(img.Height),
			Step: int(img.Step), BigEndian: img.IsBigEndian, Data: img.Data}
		header = img.Header
	case typeIs(m, msg.TypeCompressedImage, msg.MD5CompressedImage):
		if err := c.compressed(m.Data, &t.cimg); err != nil {
			t.decodeErrors.Add(1)
			p.release(m)
			return
		}
		format, ok := compressedFormat(t.cimg.Format, t.cimg.Data)
		if !ok {
			t.unknownType.Add(1)
			p.release(m)
			return
		}
		f = Frame{Format: format, Encoding: t.cimg.Format, Data: t.cimg.Data}
		header = t.cimg.Header
	default:
		t.unknownType.Add(1)
		p.release(m)
		return
	}
	stamp, recv, src, ok := p.stamp(t, m, header.Stamp, true)
	if !ok {
		p.release(m)
		return
	}
	f.Topic, f.Stamp, f.Received, f.StampSource = t.name, stamp, recv, src
	f.FrameID = t.frameID(header.FrameID)
	p.sinks.Frames.PutFrame(p.frame(f, m))
	t.events.Add(1)
}

// frameID is a frame's header.frame_id as the ring may keep it: the
// decoder's string (reused while the id does not change, so nothing is
// allocated per frame), or "" and counted when over MaxFrameIDBytes.
func (t *topic) frameID(id string) string {
	if len(id) > MaxFrameIDBytes {
		t.frameIDDrops.Add(1)
		return ""
	}
	return id
}

var (
	jpegMagic = []byte{0xff, 0xd8, 0xff}
	pngMagic  = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
)

// compressedFormat reads a CompressedImage format field: "jpeg", "png",
// or image_transport's "rgb8; jpeg compressed bgr8" / "bgr8; png
// compressed". compressedDepth (a depth header before the PNG) and other
// codecs are not camera frames. An empty or unknown format falls back to
// the data's magic bytes.
func compressedFormat(format string, data []byte) (FrameFormat, bool) {
	f := strings.ToLower(format)
	switch {
	case strings.Contains(f, "compresseddepth"):
		return 0, false
	case strings.Contains(f, "jpeg") || strings.Contains(f, "jpg"):
		return FormatJPEG, true
	case strings.Contains(f, "png"):
		return FormatPNG, true
	case bytes.HasPrefix(data, jpegMagic):
		return FormatJPEG, true
	case bytes.HasPrefix(data, pngMagic):
		return FormatPNG, true
	}
	return 0, false
}

// handleJoints emits a JointSample; its slices are freshly allocated by
// the decoder, so the message is released at once.
func (p *pipeline) handleJoints(t *topic, m *ros.Message) {
	defer p.release(m)
	c := codecOf(m)
	if c == nil || !typeIs(m, msg.TypeJointState, msg.MD5JointState) {
		t.unknownType.Add(1)
		return
	}
	if err := c.joints(m.Data, &t.js); err != nil {
		t.decodeErrors.Add(1)
		return
	}
	js := &t.js
	if max(len(js.Name), len(js.Position), len(js.Velocity), len(js.Effort)) > p.cfg.MaxJoints {
		// kept whole for the snippets, such a sample costs what the
		// joint ring holds: refused before it gets there
		t.tooManyJoints.Add(1)
		t.js.Name = nil // do not keep its names as the next decode's scratch
		return
	}
	stamp, recv, src, ok := p.stamp(t, m, t.js.Header.Stamp, true)
	if !ok {
		return
	}
	p.sinks.Joints.PutJoints(JointSample{Topic: t.name, Stamp: stamp, Received: recv, StampSource: src,
		Names: t.js.Name, Position: t.js.Position, Velocity: t.js.Velocity, Effort: t.js.Effort})
	t.events.Add(1)
}

// handleFSM decodes a state message: typed for String, SMACH and
// actionlib (unless the topic is Dynamic), else dynamically from the
// publisher's own definition.
func (p *pipeline) handleFSM(t *topic, m *ros.Message) {
	defer p.release(m)
	value, header, hasHeader, err := t.decodeState(m, p.ros2Types)
	if err != nil {
		t.decodeErrors.Add(1)
		return
	}
	if value == nil {
		t.unknownType.Add(1)
		return
	}
	stamp, recv, src, ok := p.stamp(t, m, header, hasHeader)
	if !ok {
		return
	}
	p.sinks.States.PutState(StateEvent{Topic: t.name, Type: pubType(m), Stamp: stamp, Received: recv,
		StampSource: src, Value: value, Bytes: stateBytes(value, len(m.Data))})
	t.events.Add(1)
}

// stateBytes is the most memory value, decoded from n bytes, holds
// (StateEvent.Bytes): a typed message about its size, a dynamic one up
// to the decoder's budget.
func stateBytes(value any, n int) int {
	if _, dynamic := value.(*msg.Value); dynamic {
		return msg.DecodeBudget(n)
	}
	return n
}

// decodeState returns the decoded value (nil, nil when the publisher sent
// no usable definition) and its header stamp if it has one.
func (t *topic) decodeState(m *ros.Message, reg *cdr.Registry) (value any, header msg.Time, hasHeader bool, err error) {
	c := codecOf(m)
	if c == nil {
		return nil, msg.Time{}, false, nil
	}
	if !t.dynamic {
		switch {
		case typeIs(m, msg.TypeString, msg.MD5String):
			v := &msg.String{}
			return v, msg.Time{}, false, c.str(m.Data, v)
		case c.smach != nil && typeIs(m, msg.TypeSmachContainerStatus, msg.MD5SmachContainerStatus):
			v := &msg.SmachContainerStatus{}
			err := c.smach(m.Data, v)
			return v, v.Header.Stamp, true, err
		case typeIs(m, msg.TypeGoalStatusArray, msg.MD5GoalStatusArray):
			v := &msg.GoalStatusArray{}
			err := c.goals(m.Data, v)
			// a ROS 2 status array has no header: the receive time stamps it
			return v, v.Header.Stamp, m.Publisher.Encoding != ros.EncodingCDR, err
		}
	}
	def, ok := t.definition(m.Publisher, reg)
	if !ok || def.err != nil {
		return nil, msg.Time{}, false, def.err
	}
	return def.decode(m.Data)
}

// definition parses a publisher's definition once per connection. A
// publisher without a definition gives ok false (an unknown type),
// unless it is ROS 2, whose types may come from known .msg files.
func (t *topic) definition(p *ros.PublisherInfo, reg *cdr.Registry) (parsedDef, bool) {
	if p == nil || p.Type == "" || p.MessageDefinition == "" && p.Encoding != ros.EncodingCDR {
		return parsedDef{}, false
	}
	if d, ok := t.defs[p]; ok {
		return d, true
	}
	d := parseDefinition(p, reg)
	if t.defs == nil || len(t.defs) > 64 {
		t.defs = map[*ros.PublisherInfo]parsedDef{} // publishers come and go: do not grow forever
	}
	t.defs[p] = d // a bad definition is not parsed again per message
	return d, true
}
