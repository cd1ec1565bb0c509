// Package msg understands ROS1 messages: it parses message definitions as
// publishers send them in TCPROS connection headers, computes their md5sum
// exactly as ROS does, decodes any message dynamically from its definition
// into a generic, ordered Value (with JSON rendering and a field accessor
// by path), and decodes the types edged lives on with fast typed decoders.
//
// Definitions: Parse takes the full text of a definition (the main type,
// then nested "MSG: pkg/Type" blocks separated by lines of '='; a block
// repeated with the same text counts once, with other text is an error),
// resolves every field type (builtin, Header -> std_msgs/Header,
// unqualified names in the package of the referring type) and returns an
// immutable *Definition that is safe to share between goroutines. The
// parsing, resolution, kinds and the wire reader are rosmsg's (shared
// with ros2/cdr); this package adds ROS1's md5sum and encoding.
//
// Decoding: every length read from a message (array or string) is checked
// against the bytes that remain before anything is allocated; a message
// that is short, has trailing bytes or an absurd length gets an error,
// never a panic or a huge allocation. The dynamic decoder also charges
// every Value, slice and string it materializes against DecodeBudget
// (64 KiB + 16x the message size) before allocating it: an array of
// millions of empty or one-byte messages, which would take 40-56x its
// wire size, is refused with ErrBudget before the array exists. So
// decoding one message costs at most DecodeBudget(len), live or replayed.
// ROS strings are bytes, not UTF-8: decoders keep them byte for byte in
// Go strings.
//
// Typed decoders (DecodeImage, DecodeCompressedImage, DecodeJointState,
// DecodeString, DecodeClock, DecodeSmachContainerStatus,
// DecodeGoalStatusArray, DecodeHeader) use no reflection. Image and
// CompressedImage data alias the input buffer (no copy): they are valid as
// long as the caller keeps the buffer (for a ros.Message, until Release).
// They decode into a caller-owned struct and reuse its strings when the
// bytes are unchanged, so decoding a stream of images allocates nothing in
// steady state. A decoder's target struct is not safe for concurrent use.
// The structs are rosmsg's (Image = rosmsg.Image, ...), which ros2/cdr
// fills too.
//
// Encoding (encode.go): the types edged writes itself (incident clips,
// `edged export --format mcap`), CompressedImage and JointState, with
// their definitions as publishers send them (DefCompressedImage,
// AppendCompressedImage, ...); appended to a caller's buffer.
package msg
