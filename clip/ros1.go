package clip

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// The ROS1 types a clip writes, with their definitions as a ROS1
// publisher sends them (gendeps form: the type's text, then each nested
// type after a separator and a MSG: line), the ros1msg schemas of the
// file. Frames are written as they were received when compressed and as
// JPEG when raw, so every camera is a sensor_msgs/CompressedImage.
// Their md5sums are ROS's (TestDefinitionsAreROSs), so a ROS1 tool
// takes them for the originals.
const (
	defSeparator = "================================================================================\n"
	defHeader    = "MSG: " + msg.TypeHeader + "\nuint32 seq\ntime stamp\nstring frame_id\n"

	defCompressedImage = "std_msgs/Header header\nstring format\nuint8[] data\n" + defSeparator + defHeader
	defJointState      = "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n" +
		defSeparator + defHeader
)

// ros1Buf appends ROS1 wire fields (little-endian; strings and arrays
// prefixed by their uint32 length).
type ros1Buf []byte

func (b ros1Buf) u32(v uint32) ros1Buf { return binary.LittleEndian.AppendUint32(b, v) }

func (b ros1Buf) bytes(p []byte) ros1Buf { return append(b.u32(uint32(len(p))), p...) }

func (b ros1Buf) str(s string) ros1Buf { return append(b.u32(uint32(len(s))), s...) }

func (b ros1Buf) header(seq uint32, stamp time.Time) ros1Buf {
	t := rosmsg.FromTime(stamp)
	return b.u32(seq).u32(t.Sec).u32(t.NSec).str("")
}

func (b ros1Buf) float64s(v []float64) ros1Buf {
	b = b.u32(uint32(len(v)))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

// compressedImage appends a sensor_msgs/CompressedImage of one frame.
func compressedImage(dst []byte, seq uint32, stamp time.Time, format string, data []byte) []byte {
	return ros1Buf(dst).header(seq, stamp).str(format).bytes(data)
}

// jointState appends a sensor_msgs/JointState of one sample.
func jointState(dst []byte, seq uint32, s *capture.JointSample) []byte {
	b := ros1Buf(dst).header(seq, s.Stamp).u32(uint32(len(s.Names)))
	for _, n := range s.Names {
		b = b.str(n)
	}
	return b.float64s(s.Position).float64s(s.Velocity).float64s(s.Effort)
}
