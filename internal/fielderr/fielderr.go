// Package fielderr is the error of one invalid config field. config and
// every component whose Validate names a config key (uplink, fsm,
// capture, ros, ringbuf, sheet/recipe, ros2/dds's profiles through
// config, uplink/mqttconn's TLS files) return it, so that a command that took a value from a
// flag can rename the field to the flag (config.RenameFields) whichever
// package owns the rule that refused it.
package fielderr

import (
	"errors"
	"fmt"
)

// Error is one problem of one field. Field is the config file's key
// (uplink.broker, fsm[0].type); Msg says what is wrong and what to do.
// Err, if set, is the cause (errors.Is and errors.As see it).
type Error struct {
	Field, Msg string
	Err        error
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New formats the message as fmt.Errorf does, keeping a %w operand as
// the cause.
func New(field, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Field: field, Msg: err.Error(), Err: errors.Unwrap(err)}
}
