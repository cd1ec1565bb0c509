// Package rosmsg is the one message-definition core of ROS1 and ROS 2:
// what ros/msg (ROS1 serialization) and ros2/cdr (XCDR1) share, so that
// the two encodings are the only parts that differ.
//
// Definitions. A Dialect (ROS1 or ROS2) holds what differs in .msg text:
// builtin names (ROS1 byte is int8 and time a builtin; ROS 2 byte is an
// octet, wstring exists, time a builtin_interfaces message), how types
// are spelled (pkg/Name; pkg/msg/Name), and ROS 2's bounds, defaults and
// quoted string constants. SplitBlocks cuts a concatenated definition
// into its main text and "MSG: pkg/Name" blocks; ParseText parses one
// type's text; Resolve resolves a type and all it nests (once each,
// cycles and nesting past MaxNesting refused) into the caller's
// definition type; MinSize bounds array counts. One rule for a block
// that appears twice, for both: the same text counts once (rosbag2 writes
// a dependency once per use), other text is an error naming the type.
// Every error wraps the dialect's Err.
//
// Wire. A Cursor reads one message, ROS1 (NewROS1: little-endian, packed)
// or XCDR1 (NewCDR: encapsulation header, alignment, either byte order,
// strings ending in NUL). Every length is checked against the bytes that
// remain (Count, CheckFixed) before anything is allocated; the dynamic
// decoders charge what they materialize against DecodeBudget (Charge);
// the first failure is sticky and End reports it, wrapping ErrShort,
// ErrTrailing, ErrBudget, ErrEncapsulation or ErrBound, never a panic.
// The typed readers (Header, Image, CompressedImage, JointState) are
// written once over the Cursor and fill this package's Go types (ROS1's
// shapes; ros/msg names them by alias): image data aliases the message,
// unchanged strings are reused, so a stream allocates nothing.
//
// Layering: the standard library only; ros/msg and ros2/cdr import it.
package rosmsg
