package clip

import (
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ros/msg"
)

// dialect is how a clip writes the ROS types of its camera and joint
// channels: ROS1 (ros1msg schemas, ros1 messages) or ROS 2 (ros2msg,
// cdr), as the robot speaks it (Options.ROS2). Frames are written as
// they were received when compressed and as JPEG when raw, so every
// camera is a CompressedImage. edged's own transitions and segments
// have no ROS type: JSON in both.
type dialect struct {
	schemaEncoding, messageEncoding string
	imageType, imageSchema          string
	jointType, jointSchema          string
	// image appends a CompressedImage of one frame in its frame_id;
	// joints a JointState of one sample (seq: the channel's sequence,
	// ROS1's header.seq).
	image  func(dst []byte, seq uint32, stamp time.Time, frameID, format string, data []byte) []byte
	joints func(dst []byte, seq uint32, s *capture.JointSample) []byte
}

// ros1 is the ROS1 dialect: ros/msg's definitions (ROS's md5sums) and
// encoders.
var ros1 = dialect{
	schemaEncoding: "ros1msg", messageEncoding: "ros1",
	imageType: msg.TypeCompressedImage, imageSchema: msg.DefCompressedImage,
	jointType: msg.TypeJointState, jointSchema: msg.DefJointState,
	image: msg.AppendCompressedImageFrame,
	joints: func(dst []byte, seq uint32, s *capture.JointSample) []byte {
		return msg.AppendJointState(dst, seq, s.Stamp, s.Names, s.Position, s.Velocity, s.Effort)
	},
}
