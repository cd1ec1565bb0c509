package rosmsg

// Kind is the wire type of a field (or of an array's elements), for ROS1
// and ROS 2 alike: each dialect maps its builtin names onto these.
type Kind uint8

// The builtin kinds, and KindMessage for a nested message type. KindByte
// and KindWString are ROS 2's (an octet, a UTF-16 string); KindTime and
// KindDuration are ROS1's (in ROS 2 they are messages).
const (
	KindInvalid Kind = iota
	KindBool
	KindByte
	KindInt8
	KindUint8
	KindInt16
	KindUint16
	KindInt32
	KindUint32
	KindInt64
	KindUint64
	KindFloat32
	KindFloat64
	KindString
	KindWString
	KindTime
	KindDuration
	KindMessage
)

var kindNames = [...]string{KindInvalid: "invalid", KindBool: "bool", KindByte: "byte", KindInt8: "int8",
	KindUint8: "uint8", KindInt16: "int16", KindUint16: "uint16", KindInt32: "int32", KindUint32: "uint32",
	KindInt64: "int64", KindUint64: "uint64", KindFloat32: "float32", KindFloat64: "float64",
	KindString: "string", KindWString: "wstring", KindTime: "time", KindDuration: "duration", KindMessage: "message"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Size is the fixed wire size of a kind (in XCDR1 also its alignment),
// or 0 for strings and messages.
func (k Kind) Size() int {
	switch k {
	case KindBool, KindByte, KindInt8, KindUint8:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32, KindFloat32:
		return 4
	case KindInt64, KindUint64, KindFloat64, KindTime, KindDuration:
		return 8
	}
	return 0
}

// MinWire is the least one element of kind k takes on the wire: its
// size, 4 (the length) for a string; nested is a message's least size.
func (k Kind) MinWire(nested int) int {
	switch k {
	case KindString, KindWString:
		return 4
	case KindMessage:
		return nested
	}
	return k.Size()
}

// ros1Builtins: byte and char are ROS1's deprecated aliases of int8 and
// uint8; time and duration are builtins.
var ros1Builtins = map[string]Kind{
	"bool": KindBool, "int8": KindInt8, "uint8": KindUint8, "byte": KindInt8, "char": KindUint8,
	"int16": KindInt16, "uint16": KindUint16, "int32": KindInt32, "uint32": KindUint32,
	"int64": KindInt64, "uint64": KindUint64, "float32": KindFloat32, "float64": KindFloat64,
	"string": KindString, "time": KindTime, "duration": KindDuration,
}

// ros2Builtins: byte and char are octets; wstring exists; time and
// duration are builtin_interfaces messages.
var ros2Builtins = map[string]Kind{
	"bool": KindBool, "byte": KindByte, "char": KindByte, "int8": KindInt8, "uint8": KindUint8,
	"int16": KindInt16, "uint16": KindUint16, "int32": KindInt32, "uint32": KindUint32,
	"int64": KindInt64, "uint64": KindUint64, "float32": KindFloat32, "float64": KindFloat64,
	"string": KindString, "wstring": KindWString,
}
