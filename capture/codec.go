package capture

import (
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// codec is the typed decoders of one wire encoding. Both fill ros/msg's
// structs, so everything after the decode is one code path for ROS1 and
// ROS 2 messages. A nil decoder: that type does not exist there.
type codec struct {
	image      func([]byte, *msg.Image) error
	compressed func([]byte, *msg.CompressedImage) error
	joints     func([]byte, *msg.JointState) error
	str        func([]byte, *msg.String) error
	clock      func([]byte, *msg.Clock) error
	goals      func([]byte, *msg.GoalStatusArray) error
	smach      func([]byte, *msg.SmachContainerStatus) error
}

var (
	ros1Codec = &codec{image: msg.DecodeImage, compressed: msg.DecodeCompressedImage, joints: msg.DecodeJointState,
		str: msg.DecodeString, clock: msg.DecodeClock, goals: msg.DecodeGoalStatusArray, smach: msg.DecodeSmachContainerStatus}
	// ROS 2: CDR; action status is action_msgs/GoalStatusArray, which
	// cdr maps onto actionlib's struct; there is no SMACH.
	cdrCodec = &codec{image: cdr.DecodeImage, compressed: cdr.DecodeCompressedImage, joints: cdr.DecodeJointState,
		str: cdr.DecodeString, clock: cdr.DecodeClock, goals: cdr.DecodeGoalStatusArray}
)

// codecOf picks the decoders by the publisher's encoding; nil for an
// encoding capture cannot read (its messages count as unknown types).
func codecOf(m *ros.Message) *codec {
	if m.Publisher == nil {
		return ros1Codec
	}
	switch m.Publisher.Encoding {
	case ros.EncodingROS1:
		return ros1Codec
	case ros.EncodingCDR:
		return cdrCodec
	}
	return nil
}

// ros2Types maps a ROS1 type name with a typed decoder to the ROS 2 name
// of the same message (actionlib's status is action_msgs' in ROS 2).
var ros2Types = map[string]string{
	msg.TypeImage: cdr.TypeImage, msg.TypeCompressedImage: cdr.TypeCompressedImage,
	msg.TypeJointState: cdr.TypeJointState, msg.TypeString: cdr.TypeString, msg.TypeClock: cdr.TypeClock,
	msg.TypeGoalStatusArray: cdr.TypeGoalStatusArray,
}

// parsedDef is a publisher's definition, parsed once: ROS1 or ROS 2.
type parsedDef struct {
	def  *msg.Definition
	def2 *cdr.Definition
	err  error
}

// decode decodes a message dynamically and finds its header stamp.
func (p parsedDef) decode(b []byte) (v *msg.Value, header msg.Time, hasHeader bool, err error) {
	if p.def2 != nil {
		if v, err = p.def2.Decode(b); err != nil {
			return nil, msg.Time{}, false, err
		}
		header, hasHeader = cdr.Stamp(v)
		return v, header, hasHeader, nil
	}
	if v, err = p.def.Decode(b); err != nil {
		return nil, msg.Time{}, false, err
	}
	if p.def.HasHeader() {
		if h, ok := v.Fields[0].(*msg.Value); ok {
			s, _ := h.Field("stamp")
			header, hasHeader = s.(msg.Time)
		}
	}
	return v, header, hasHeader, nil
}

// parseDefinition parses a publisher's definition by its encoding; a
// ROS 2 type the text does not define comes from reg (nil: the bundled
// definitions).
func parseDefinition(p *ros.PublisherInfo, reg *cdr.Registry) parsedDef {
	if p.Encoding != ros.EncodingCDR {
		d, err := msg.Parse(p.Type, p.MessageDefinition)
		return parsedDef{def: d, err: err}
	}
	var d *cdr.Definition
	var err error
	if reg != nil {
		d, err = reg.Parse(p.Type, p.MessageDefinition)
	} else {
		d, err = cdr.Parse(p.Type, p.MessageDefinition)
	}
	return parsedDef{def2: d, err: err}
}
