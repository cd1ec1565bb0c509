// Package wire is the uplink's wire format (docs/wire.md): the msgp
// Envelope every MQTT payload is (version, id as the idempotency key,
// robot, episode, kind, sequence, chunking, CRC-32C of the body), the
// message kinds and their bodies (Manifest, Segment, SheetBody, the
// zstd-compressed Snippet, Status), and what the receiver sends back
// (Ack, Repair naming the Pieces an episode lacks).
//
// wire.go holds the types (wire_gen.go is generated from it by msgp:
// `go generate`); codec.go decoding, validation, ids, safe names and
// Split into chunks; piece.go the pieces of an episode and repair
// requests; snippet.go and snippetpack.go the snippet encoding (format
// 2 written, formats 1 and 2 read: docs/wire.md).
//
// Bad input: Decode, DecodeAck, DecodeRepair and DecodeSnippet
// check every length against the caps here (MaxEnvelope, MaxBody,
// MaxChunks, MaxAck, MaxRepair, MaxSnippet) before allocating, and
// return an error, never panic. It does no I/O, starts no goroutines,
// and imports no edged package: both ends of the uplink (the robot's
// ship and uplink, the sink) share it.
package wire
