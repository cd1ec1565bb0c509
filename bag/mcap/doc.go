// Package mcap reads and writes MCAP files (https://mcap.dev/spec,
// format version 0), written from the specification: the storage of
// rosbag2 since Iron and of Foxglove's tools. format.go owns the
// opcodes and the field reading (cursor), encode.go the field writing.
//
// What it reads: the records a reader needs (header, schemas, channels,
// messages loose or in zstd/lz4/plain chunks, chunk indexes, statistics,
// metadata, footer), the rest skipped; CRCs checked where present, the
// data section's by a scan or with Options.VerifyDataCRC (reader.go).
//
// Order. Open reads the footer and, when the summary has chunk indexes,
// takes every chunk's offset and time range from them (Info.Indexed).
// Otherwise (no summary, a file cut short, a summary that does not
// parse) it scans the data section record by record, decompressing each
// chunk once to learn its schemas and channels; Info.Problems names
// what could not be read and where. An Iterator yields messages in
// log-time order (ties in file order): it loads chunks by start time
// and keeps decompressed every chunk that may still hold an earlier
// message than the ones loaded, so overlapping chunks merge (bounded by
// Options.MaxCacheBytes).
//
// Who calls what. Open (or NewReader on any io.ReaderAt) reads the
// index; Info, Channels and Metadata describe the file; Messages returns
// an Iterator, optionally for some topics only; Close closes the file.
// A Reader is immutable after Open and safe for concurrent use; an
// Iterator belongs to one goroutine, and several may run at once.
//
// Buffer ownership. A Message's Data aliases the Iterator's chunk
// buffer: valid until the next call to Next (or Close). Buffers and the
// zstd decoder are reused, so iterating allocates per chunk, never per
// message.
//
// Writing (writer.go): NewWriter over any io.Writer, AddSchema,
// AddChannel, WriteMessage (copied into the one chunk held in memory),
// WriteMetadata, Close (last chunk, DataEnd, summary, footer). Oversized
// records are refused with ErrTooLarge and the file stays valid; the
// first write failure sticks. The same calls give the same bytes. A
// Writer is for one goroutine and knows no message type.
//
// Bad input. Every length read from the file is checked against the
// file's size, the record it is in, and a cap in Options before anything
// is allocated. A damaged record gives a *CorruptError (errors.Is
// ErrCorrupt) naming its byte offset, never a panic: at Open a file
// with no usable summary is scanned and keeps what precedes the damage;
// during iteration a chunk that does not decompress or fails its CRC
// ends the Iterator with that error (Err) after the messages before it.
package mcap
