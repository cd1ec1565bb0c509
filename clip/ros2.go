package clip

import (
	"fmt"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// ros2Dialect is the ROS 2 dialect: ros2msg schemas of ros2/cdr's
// bundled definitions as rosbag2 writes them (cdr.Schema) and its
// encoder (ROS 2 has no header seq).
func ros2Dialect() (dialect, error) {
	d := dialect{schemaEncoding: "ros2msg", messageEncoding: "cdr",
		imageType: cdr.TypeCompressedImage, jointType: cdr.TypeJointState,
		image: func(dst []byte, _ uint32, stamp time.Time, frameID, format string, data []byte) []byte {
			return cdr.AppendCompressedImage(dst, stamp, frameID, format, data)
		},
		joints: func(dst []byte, _ uint32, s *capture.JointSample) []byte {
			return cdr.AppendJointState(dst, s.Stamp, "", s.Names, s.Position, s.Velocity, s.Effort)
		}}
	var err error
	if d.imageSchema, err = cdr.Schema(d.imageType); err != nil {
		return d, fmt.Errorf("clip: %w", err) // a build defect: the definitions are bundled
	}
	if d.jointSchema, err = cdr.Schema(d.jointType); err != nil {
		return d, fmt.Errorf("clip: %w", err)
	}
	return d, nil
}
