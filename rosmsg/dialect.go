package rosmsg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits of the parser: a definition is small text written by people.
const (
	// MaxDefinitionBytes caps the text a definition may have.
	MaxDefinitionBytes = 1 << 20
	// MaxNesting caps how deep message types may nest.
	MaxNesting = 32
	// MaxFixedArray caps a fixed array length or a bound in a definition.
	MaxFixedArray = 1 << 24
)

// Dialect is what differs between ROS1 and ROS 2 .msg text: builtin
// names, how type names are spelled, and the ROS 2 additions (bounds,
// defaults, quoted string constants).
type Dialect struct {
	// Err is wrapped by every definition error of the dialect.
	Err      error
	builtins map[string]Kind
	// typeName is the full name of a type written in a block header or
	// nested in a field (pkg/Name for ROS1, pkg/msg/Name for ROS 2).
	typeName func(string) (string, bool)
	// local is the full name of an unqualified type of package pkg.
	local         func(pkg, name string) string
	aliases       map[string]string // field types that name another type (Header)
	bounded       bool              // [<=N] arrays and string<=N
	defaults      bool              // TYPE NAME DEFAULT
	quotedStrings bool              // string constants are quoted; ROS1 keeps the text right of '='
	isBool        func(string) bool
}

// The errors the two dialects wrap.
var (
	ErrROS1Definition = errors.New("invalid message definition")
	ErrROS2Definition = errors.New("invalid ROS 2 message definition")
)

// ROS1 is the dialect of ROS1 message definitions (genmsg).
var ROS1 = &Dialect{
	Err:      ErrROS1Definition,
	builtins: ros1Builtins,
	typeName: func(t string) (string, bool) {
		pkg, name, ok := strings.Cut(t, "/")
		return t, ok && ValidName(pkg) && ValidName(name)
	},
	local:   func(pkg, name string) string { return pkg + "/" + name },
	aliases: map[string]string{"Header": "std_msgs/Header"},
	isBool:  func(v string) bool { _, err := strconv.ParseBool(v); return err == nil },
}

// ROS2 is the dialect of ROS 2 message definitions (rosidl).
var ROS2 = &Dialect{
	Err:      ErrROS2Definition,
	builtins: ros2Builtins,
	typeName: Normalize,
	local:    func(pkg, name string) string { return pkg + "/msg/" + name },
	aliases: map[string]string{"Header": "std_msgs/msg/Header",
		"time": "builtin_interfaces/msg/Time", "duration": "builtin_interfaces/msg/Duration"},
	bounded: true, defaults: true, quotedStrings: true,
	isBool: func(v string) bool {
		switch strings.ToLower(v) {
		case "true", "false", "0", "1":
			return true
		}
		return false
	},
}

// Errorf returns an error wrapping d.Err.
func (d *Dialect) Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", d.Err, fmt.Sprintf(format, args...))
}

// TypeName checks a full type name as the dialect spells it and returns
// its canonical form (ROS 2 accepts pkg/Name for pkg/msg/Name).
func (d *Dialect) TypeName(t string) (string, bool) { return d.typeName(t) }

// Builtin returns the kind of a builtin type name.
func (d *Dialect) Builtin(name string) (Kind, bool) {
	k, ok := d.builtins[name]
	return k, ok
}

// Normalize returns the canonical pkg/msg/Name of a ROS 2 type name
// written pkg/msg/Name or pkg/Name (as rosbag2 names nested blocks);
// ok is false for anything else. Services and actions keep their
// infix (test_msgs/srv/BasicTypes_Event).
func Normalize(typeName string) (string, bool) {
	parts := strings.Split(typeName, "/")
	switch {
	case len(parts) == 2 && ValidName(parts[0]) && ValidName(parts[1]):
		return parts[0] + "/msg/" + parts[1], true
	case len(parts) == 3 && ValidName(parts[0]) && ValidName(parts[1]) && ValidName(parts[2]):
		return typeName, true
	}
	return "", false
}

// ValidName: a letter, then letters, digits and underscores.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c != '_' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// Package returns the package of a full type name.
func Package(typeName string) string {
	pkg, _, _ := strings.Cut(typeName, "/")
	return pkg
}
