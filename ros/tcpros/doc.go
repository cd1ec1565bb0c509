// Package tcpros speaks the subscriber side of ROS1's TCPROS transport:
// connection headers, the subscriber handshake and length-prefixed
// message frames.
//
// Wire format: a connection header is a 4-byte little-endian total length
// followed by fields, each a 4-byte little-endian length and "key=value".
// After the handshake, every message is a 4-byte little-endian length and
// that many bytes of serialized message.
//
// Caps: ReadHeader refuses a header over its total cap and any field over
// MaxFieldBytes before allocating; FrameReader refuses a frame longer than
// its cap before allocating, reads a body over GrowStep (and over the
// connection's last whole frame) in buffers that grow 4x at a time (a
// peer that stalls pins at most 4x what it sent, or what it once sent
// whole),
// and asks the caller's reserve function before taking each buffer (a
// refusal skips the body: ErrNoRoom, stream still in sync). Both return errors wrapping ErrTooLarge or
// ErrMalformed so the caller can count and close the connection.
//
// Buffers: FrameReader takes frame buffers from a Pool of size classes;
// the caller owns a returned *Buffer until it calls Put. In steady state
// (frames of similar size, buffers returned) reading allocates nothing.
//
// Reads: SocketReader wraps a TCP connection so each read is a raw
// read(2) on the non-blocking socket (no entersyscall, so no sysmon
// wake-up per read; EAGAIN still parks on the netpoller, deadlines and
// Close still apply); Linux only, elsewhere it returns the conn. A
// FrameReader over it raises the socket's SO_RCVLOWAT to the rest of a
// body before it parks, so a body arriving in many segments wakes its
// reader once.
//
// Concurrency: a FrameReader belongs to one goroutine; a Pool is safe for
// concurrent use.
package tcpros
