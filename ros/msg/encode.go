package msg

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/edged-robotics/edged/rosmsg"
)

// The definitions of the types edged writes (incident clips and `edged
// export --format mcap`, as ros1msg MCAP schemas), as a ROS1 publisher
// sends them (gendeps form: the type's text, then each nested type
// after a separator and a MSG: line). Their md5sums are ROS's
// (TestWrittenDefinitionsAreROSs), so ROS1 tools take them for the
// originals.
const (
	defSeparator = "================================================================================\n"
	defHeader    = "MSG: " + TypeHeader + "\nuint32 seq\ntime stamp\nstring frame_id\n"

	DefCompressedImage = "std_msgs/Header header\nstring format\nuint8[] data\n" + defSeparator + defHeader
	DefJointState      = "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n" +
		defSeparator + defHeader
)

// AppendCompressedImage appends a sensor_msgs/CompressedImage (an empty
// frame_id) to dst.
func AppendCompressedImage(dst []byte, seq uint32, stamp time.Time, format string, data []byte) []byte {
	return AppendCompressedImageFrame(dst, seq, stamp, "", format, data)
}

// AppendCompressedImageFrame is AppendCompressedImage with the header's
// frame_id.
func AppendCompressedImageFrame(dst []byte, seq uint32, stamp time.Time, frameID, format string, data []byte) []byte {
	return ros1Buf(dst).headerIn(seq, stamp, frameID).str(format).bytes(data)
}

// AppendJointState appends a sensor_msgs/JointState (an empty frame_id)
// to dst: names, then each array as given (ROS allows them shorter
// than names, empty when unknown).
func AppendJointState(dst []byte, seq uint32, stamp time.Time, names []string, position, velocity, effort []float64) []byte {
	b := ros1Buf(dst).header(seq, stamp).u32(uint32(len(names)))
	for _, n := range names {
		b = b.str(n)
	}
	return b.float64s(position).float64s(velocity).float64s(effort)
}

// AppendString appends a std_msgs/String (a replayed clip's FSM state).
func AppendString(dst []byte, s string) []byte { return ros1Buf(dst).str(s) }

// ros1Buf appends ROS1 wire fields (little-endian; strings and arrays
// prefixed by their uint32 length).
type ros1Buf []byte

func (b ros1Buf) u32(v uint32) ros1Buf { return binary.LittleEndian.AppendUint32(b, v) }

func (b ros1Buf) bytes(p []byte) ros1Buf { return append(b.u32(uint32(len(p))), p...) }

func (b ros1Buf) str(s string) ros1Buf { return append(b.u32(uint32(len(s))), s...) }

func (b ros1Buf) header(seq uint32, stamp time.Time) ros1Buf { return b.headerIn(seq, stamp, "") }

// headerIn is a std_msgs/Header in frame frameID.
func (b ros1Buf) headerIn(seq uint32, stamp time.Time, frameID string) ros1Buf {
	t := rosmsg.FromTime(stamp)
	return b.u32(seq).u32(t.Sec).u32(t.NSec).str(frameID)
}

func (b ros1Buf) float64s(v []float64) ros1Buf {
	b = b.u32(uint32(len(v)))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}
