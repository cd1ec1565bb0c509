package clip

import (
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ros/msg"
)

// The ROS1 types a clip writes, their definitions and encoders being
// ros/msg's (msg.DefCompressedImage, msg.AppendCompressedImage, ...):
// the ros1msg schemas of the file. Frames are written as they were
// received when compressed and as JPEG when raw, so every camera is a
// sensor_msgs/CompressedImage.
const (
	defCompressedImage = msg.DefCompressedImage
	defJointState      = msg.DefJointState
)

// compressedImage appends a sensor_msgs/CompressedImage of one frame.
func compressedImage(dst []byte, seq uint32, stamp time.Time, format string, data []byte) []byte {
	return msg.AppendCompressedImage(dst, seq, stamp, format, data)
}

// jointState appends a sensor_msgs/JointState of one sample.
func jointState(dst []byte, seq uint32, s *capture.JointSample) []byte {
	return msg.AppendJointState(dst, seq, s.Stamp, s.Names, s.Position, s.Velocity, s.Effort)
}
