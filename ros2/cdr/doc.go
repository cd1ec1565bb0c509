// Package cdr understands ROS 2 messages: it parses ROS 2 .msg
// definitions, bundles the definitions of the interfaces edged uses,
// accepts a directory of user .msg files for the rest, and decodes
// serialized messages (XCDR1, as rmw and rosbag2 carry them) with typed
// decoders into the same Go types ros/msg uses for ROS1, and dynamically
// into *msg.Value, so capture, the fsm sources and `edged echo` work on
// ROS 2 messages unchanged.
//
// Definitions. ROS 2 syntax: types pkg/msg/Name (pkg/Name and an
// unqualified Name in the same package are accepted), bounded strings
// (string<=10), fixed, unbounded and bounded arrays (int32[3], int32[],
// int32[<=5]), default values (kept as text), constants (NAME=VALUE),
// byte and char as octets, wstring. builtin_interfaces/Time is a message
// (int32 sec, uint32 nanosec), not a builtin. Registry.Parse takes a
// type's text with nested "MSG: pkg/Name" blocks after lines of '=' (as
// rosbag2 and MCAP ros2msg schemas hold them; a block repeated with the
// same text, as rosbag2 writes them, counts once, with other text is an
// error naming the type); a type the text does not
// define comes from the Registry: Bundled (msgs/, written from the ROS 2
// interface specifications) plus AddDir (a user directory laid out
// pkg/msg/Name.msg). Load (bundled, then AddDir of each directory) is the
// one loader: edged run and replay (ros2.msg_dirs) and the tools'
// --msg-dir call it. A user's type also wins over a recording's own text
// for that type, so a bag with placeholder or wrong definitions decodes
// with the user's .msg files. An empty message gets rosidl's one uint8 member,
// which is on the wire. A parsed *Definition is immutable and safe to
// share; its Value() is the ros/msg mirror (type names pkg/Name) that
// decoded values point to. A Registry is set up first and read-only
// after that.
//
// Wire format. Every message starts with the 4-byte encapsulation header:
// 00 01 is CDR little-endian, 00 00 CDR big-endian; anything else
// (parameter lists, XCDR2) is refused with ErrEncapsulation. Primitives
// are aligned to their size (8-byte ones to 8, as classic CDR does),
// relative to the byte after the header; strings are a uint32 length
// counting the NUL, the bytes and the NUL; sequences a uint32 count;
// fixed arrays have no count. Up to 3 bytes of padding may follow the
// last field.
//
// Typed decoders (DecodeImage, DecodeCompressedImage, DecodeJointState,
// DecodeString, DecodeClock, DecodeHeader, DecodeGoalStatusArray) use no
// reflection and fill ros/msg's structs: Image and CompressedImage data
// alias the input (no copy), unchanged strings are reused, so decoding
// a camera stream allocates nothing per message. A ROS 2 Header has no
// seq (Seq is 0); a negative stamp second is the zero (unset) time.
// action_msgs/GoalStatusArray is mapped to actionlib's struct (the UUID
// as the goal id, the status by GoalStatusToROS1) so the fsm's actionlib
// source reads ROS 2 action status topics.
//
// Encoding. Writer is edged's one CDR encoder (little-endian XCDR1,
// aligned as the decoders read); AppendCompressedImage and
// AppendJointState write the types incident clips hold, and
// Registry.Schema their ros2msg text as rosbag2 writes it into MCAP
// (the type's text, then "MSG: pkg/Name" blocks after 80 '=').
//
// Bad input. Every length read from a message is checked against the
// bytes that remain (and its declared bound) before anything is
// allocated; the dynamic decoder also charges what it materializes
// against DecodeBudget (ros/msg's rule, 64 KiB + 16x the size). A
// malformed message gets an error wrapping ErrShort, ErrTrailing,
// ErrEncapsulation, ErrBound or ErrBudget, never a panic.
//
// Shared with ROS1: the parsing, resolution, kinds, the wire reader and
// the typed readers are rosmsg's (its ROS2 dialect and XCDR1 Cursor);
// this package adds the registry, service events, the ros/msg mirror and
// the ROS 2 only decoders (GoalStatusArray, wstring, bounds).
//
// Layering: cdr imports rosmsg, ros/msg (its types) and nothing above;
// capture and the ROS 2 sources (rosbag2 replay, the DDS binding) call it.
package cdr
