package cdr

import "github.com/edged-robotics/edged/ros/msg"

// Kind is the wire type of a field (or of an array's elements) in a ROS 2
// definition. It differs from msg.Kind: ROS 2 has wstring and no time or
// duration builtins (builtin_interfaces/Time is a message).
type Kind uint8

// The builtin kinds, and KindMessage for a nested message type.
const (
	KindInvalid Kind = iota
	KindBool
	KindByte // byte and char: one unsigned octet
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
	KindMessage
)

// builtins maps ROS 2 builtin type names to their kind. byte and char
// are octets in ROS 2 (in ROS1 byte was int8).
var builtins = map[string]Kind{
	"bool": KindBool, "byte": KindByte, "char": KindByte, "int8": KindInt8, "uint8": KindUint8,
	"int16": KindInt16, "uint16": KindUint16, "int32": KindInt32, "uint32": KindUint32,
	"int64": KindInt64, "uint64": KindUint64, "float32": KindFloat32, "float64": KindFloat64,
	"string": KindString, "wstring": KindWString,
}

// size is the wire size (and the XCDR1 alignment) of a primitive kind;
// 0 for strings and messages.
func (k Kind) size() int {
	switch k {
	case KindBool, KindByte, KindInt8, KindUint8:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32, KindFloat32:
		return 4
	case KindInt64, KindUint64, KindFloat64:
		return 8
	}
	return 0
}

// msgKind is the ros/msg kind a decoded value of k has in a *msg.Value.
func (k Kind) msgKind() msg.Kind {
	return [...]msg.Kind{KindInvalid: msg.KindInvalid, KindBool: msg.KindBool, KindByte: msg.KindUint8,
		KindInt8: msg.KindInt8, KindUint8: msg.KindUint8, KindInt16: msg.KindInt16, KindUint16: msg.KindUint16,
		KindInt32: msg.KindInt32, KindUint32: msg.KindUint32, KindInt64: msg.KindInt64, KindUint64: msg.KindUint64,
		KindFloat32: msg.KindFloat32, KindFloat64: msg.KindFloat64, KindString: msg.KindString,
		KindWString: msg.KindString, KindMessage: msg.KindMessage}[k]
}

func (k Kind) String() string {
	for name, kk := range builtins {
		if kk == k && name != "char" {
			return name
		}
	}
	if k == KindMessage {
		return "message"
	}
	return "invalid"
}
