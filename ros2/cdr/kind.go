package cdr

import (
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// Kind is the wire type of a field (or of an array's elements): rosmsg's
// (rosmsg.KindInt32, ...), of which ROS 2 uses all but KindTime and
// KindDuration (builtin_interfaces/Time is a message), with KindByte for
// byte and char (octets) and KindWString.
type Kind = rosmsg.Kind

// msgKind is the kind a decoded value of k has in a *msg.Value: an octet
// is a uint8, a wstring a (UTF-8) string.
func msgKind(k Kind) msg.Kind {
	switch k {
	case rosmsg.KindByte:
		return msg.KindUint8
	case rosmsg.KindWString:
		return msg.KindString
	}
	return k
}
