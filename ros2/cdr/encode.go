package cdr

import (
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/edged-robotics/edged/rosmsg"
)

// The encoders of the types edged writes under ROS 2 (incident clips'
// cdr channels, the ~snapshot service's replies): little-endian XCDR1,
// the encapsulation header first, every primitive aligned to its size
// counted from the byte after the header, as the decoders read it. This
// is edged's one CDR encoder: tests write through it too.

// Writer appends XCDR1 little-endian fields to a message begun by
// NewWriter (the encapsulation header written). Its methods chain.
type Writer struct{ b []byte }

// NewWriter begins a message in dst[:0]'s storage: the 4-byte
// encapsulation header of CDR little-endian.
func NewWriter(dst []byte) *Writer { return &Writer{b: append(dst[:0], 0, 1, 0, 0)} }

// Bytes is the message written so far.
func (w *Writer) Bytes() []byte { return w.b }

// align pads to n bytes past the encapsulation header.
func (w *Writer) align(n int) {
	for (len(w.b)-4)%n != 0 {
		w.b = append(w.b, 0)
	}
}

// U8 appends a uint8 (also a bool, byte or char).
func (w *Writer) U8(v uint8) *Writer { w.b = append(w.b, v); return w }

// Bool appends a bool.
func (w *Writer) Bool(v bool) *Writer {
	if v {
		return w.U8(1)
	}
	return w.U8(0)
}

// U32 appends a uint32.
func (w *Writer) U32(v uint32) *Writer {
	w.align(4)
	w.b = binary.LittleEndian.AppendUint32(w.b, v)
	return w
}

// U64 appends a uint64.
func (w *Writer) U64(v uint64) *Writer {
	w.align(8)
	w.b = binary.LittleEndian.AppendUint64(w.b, v)
	return w
}

// F64 appends a float64.
func (w *Writer) F64(v float64) *Writer { return w.U64(math.Float64bits(v)) }

// Str appends a string: its length counting the NUL, the bytes, the NUL.
func (w *Writer) Str(s string) *Writer {
	w.U32(uint32(len(s) + 1))
	w.b = append(append(w.b, s...), 0)
	return w
}

// Octets appends a uint8[] sequence: its count, then the bytes.
func (w *Writer) Octets(p []byte) *Writer {
	w.U32(uint32(len(p)))
	w.b = append(w.b, p...)
	return w
}

// Strs appends a string[] sequence.
func (w *Writer) Strs(v []string) *Writer {
	w.U32(uint32(len(v)))
	for _, s := range v {
		w.Str(s)
	}
	return w
}

// F64s appends a float64[] sequence.
func (w *Writer) F64s(v []float64) *Writer {
	w.U32(uint32(len(v)))
	for _, f := range v {
		w.F64(f)
	}
	return w
}

// Time appends a builtin_interfaces/msg/Time (int32 sec, uint32
// nanosec): before the epoch is 0, past 2038 the largest second.
func (w *Writer) Time(t time.Time) *Writer {
	rt := rosmsg.FromTime(t)
	return w.U32(min(rt.Sec, math.MaxInt32)).U32(rt.NSec)
}

// Header appends a std_msgs/msg/Header.
func (w *Writer) Header(stamp time.Time, frameID string) *Writer {
	return w.Time(stamp).Str(frameID)
}

// AppendCompressedImage appends a sensor_msgs/msg/CompressedImage to
// dst[:0]'s storage.
func AppendCompressedImage(dst []byte, stamp time.Time, frameID, format string, data []byte) []byte {
	return NewWriter(dst).Header(stamp, frameID).Str(format).Octets(data).Bytes()
}

// AppendJointState appends a sensor_msgs/msg/JointState to dst[:0]'s
// storage: names, then each array as given (ROS allows them shorter than
// names, empty when unknown).
func AppendJointState(dst []byte, stamp time.Time, frameID string, names []string, position, velocity, effort []float64) []byte {
	return NewWriter(dst).Header(stamp, frameID).Strs(names).F64s(position).F64s(velocity).F64s(effort).Bytes()
}

// schemaSeparator precedes each nested type of a ros2msg schema.
const schemaSeparator = "================================================================================\n"

// Schema returns the ros2msg text of typeName as rosbag2 writes it into
// an MCAP schema: the type's own text, then each type it uses (depth
// first, once) after a line of 80 '=' and "MSG: pkg/Name". The texts are
// the registry's; Parse reads the result back.
func (r *Registry) Schema(typeName string) (string, error) {
	d, err := r.Parse(typeName, "")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(d.Text)
	seen := map[string]bool{d.Type: true}
	var nested func(*Definition)
	nested = func(d *Definition) {
		for _, f := range d.Fields {
			if f.Msg == nil || seen[f.Msg.Type] {
				continue
			}
			seen[f.Msg.Type] = true
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(schemaSeparator + "MSG: " + ROS1Name(f.Msg.Type) + "\n" + f.Msg.Text)
			nested(f.Msg)
		}
	}
	nested(d)
	return b.String(), nil
}

// Schema is Registry.Schema of the bundled definitions.
func Schema(typeName string) (string, error) { return defaultRegistry().Schema(typeName) }
