package cdr

import (
	"strings"

	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// Limits of the parser (rosmsg's).
const (
	// MaxDefinitionBytes caps the text Parse accepts.
	MaxDefinitionBytes = rosmsg.MaxDefinitionBytes
	// MaxNesting caps how deep message types may nest.
	MaxNesting = rosmsg.MaxNesting
)

// Definition is one parsed, resolved ROS 2 message type. It is immutable
// after parsing and safe to share between goroutines.
type Definition struct {
	Type      string // pkg/msg/Name, e.g. sensor_msgs/msg/Image
	Fields    []Field
	Constants []msg.Constant
	Text      string // this type's own text (without nested blocks)

	value   *msg.Definition // the mirror a decoded *msg.Value points to
	minSize int             // smallest serialized size (no padding), for length caps
}

// Field is one field of a Definition.
type Field struct {
	Name string
	// Type is the element type: a builtin name (uint8, string, ...) or
	// pkg/msg/Name for a message.
	Type string
	Kind Kind
	// Array: ArrayNone for a single value; ArrayFixed holds exactly Len
	// elements (no length on the wire); ArrayUnbounded and ArrayBounded
	// are sequences with a uint32 count (at most Len when bounded).
	Array ArrayKind
	Len   int
	// StringBound is the <=N of a bounded string or wstring (0: none).
	StringBound int
	Default     string      // the default value's text, "" when none
	Msg         *Definition // the nested type when Kind is rosmsg.KindMessage
}

// ArrayKind says whether and how a field is an array.
type ArrayKind = rosmsg.ArrayKind

// The array kinds of a field.
const (
	ArrayNone      = rosmsg.ArrayNone
	ArrayFixed     = rosmsg.ArrayFixed
	ArrayUnbounded = rosmsg.ArrayUnbounded
	ArrayBounded   = rosmsg.ArrayBounded
)

// IsArray reports whether the field holds several elements.
func (f *Field) IsArray() bool { return f.Array != ArrayNone }

// Value returns the ros/msg mirror of d: the *msg.Definition that
// decoded *msg.Values point to, so that Field, Get and JSON work on them
// as on ROS1 values. Its type names are pkg/Name (std_msgs/Header), as
// ROS1 spells them.
func (d *Definition) Value() *msg.Definition { return d.value }

// FieldIndex returns the index of the named field, or -1 (its mirror has
// the same fields in the same order).
func (d *Definition) FieldIndex(name string) int { return d.value.FieldIndex(name) }

// HasHeader reports whether the first field is a std_msgs/msg/Header
// named header, the convention for stamped messages.
func (d *Definition) HasHeader() bool {
	return len(d.Fields) > 0 && d.Fields[0].Name == "header" && d.Fields[0].Array == ArrayNone &&
		d.Fields[0].Type == TypeHeader
}

// ErrDefinition is wrapped by every error Parse returns.
var ErrDefinition = rosmsg.ErrROS2Definition

// Normalize returns the canonical pkg/msg/Name of a ROS 2 type name
// written pkg/msg/Name or pkg/Name (as rosbag2 names nested blocks);
// ok is false for anything else. Services and actions keep their
// infix (test_msgs/srv/BasicTypes_Event).
func Normalize(typeName string) (string, bool) { return rosmsg.Normalize(typeName) }

// ROS1Name returns pkg/Name for pkg/msg/Name (sensor_msgs/Image for
// sensor_msgs/msg/Image): the name the ROS1 path and the typed decoders
// of ros/msg use. Other names are returned unchanged.
func ROS1Name(typeName string) string {
	pkg, rest, ok := strings.Cut(typeName, "/msg/")
	if !ok || strings.Contains(rest, "/") {
		return typeName
	}
	return pkg + "/" + rest
}
