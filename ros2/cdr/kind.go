package cdr

import (
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// Kind is the wire type of a field (or of an array's elements): rosmsg's,
// of which ROS 2 uses the kinds below (wstring, byte and char as octets;
// no time or duration builtins: builtin_interfaces/Time is a message).
type Kind = rosmsg.Kind

// The ROS 2 builtin kinds, and KindMessage for a nested message type.
const (
	KindInvalid = rosmsg.KindInvalid
	KindBool    = rosmsg.KindBool
	KindByte    = rosmsg.KindByte // byte and char: one unsigned octet
	KindInt8    = rosmsg.KindInt8
	KindUint8   = rosmsg.KindUint8
	KindInt16   = rosmsg.KindInt16
	KindUint16  = rosmsg.KindUint16
	KindInt32   = rosmsg.KindInt32
	KindUint32  = rosmsg.KindUint32
	KindInt64   = rosmsg.KindInt64
	KindUint64  = rosmsg.KindUint64
	KindFloat32 = rosmsg.KindFloat32
	KindFloat64 = rosmsg.KindFloat64
	KindString  = rosmsg.KindString
	KindWString = rosmsg.KindWString
	KindMessage = rosmsg.KindMessage
)

// msgKind is the kind a decoded value of k has in a *msg.Value: an octet
// is a uint8, a wstring a (UTF-8) string.
func msgKind(k Kind) msg.Kind {
	switch k {
	case KindByte:
		return msg.KindUint8
	case KindWString:
		return msg.KindString
	}
	return k
}
