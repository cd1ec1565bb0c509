// Package mcap reads and writes MCAP files (https://mcap.dev/spec,
// format version 0), written from the specification: the storage of
// rosbag2 since Iron and of Foxglove's tools. format.go owns the
// opcodes and the field reading (cursor), encode.go the field writing.
//
// What it reads. The magic at both ends; Header (profile, library);
// Schema and Channel records (in the summary, the data section or inside
// chunks); Message records, loose or in Chunks (compression "", "zstd"
// or "lz4" frames); ChunkIndex, Statistics, MetadataIndex and Metadata
// records; the Footer. MessageIndex, Attachment, AttachmentIndex,
// SummaryOffset and DataEnd records are skipped: the Iterator reads
// whole chunks and sorts them itself. CRCs are checked where present:
// the summary CRC at Open, each chunk's uncompressed CRC when it is
// loaded, and the data section CRC (DataEnd's, when not 0) where the
// data section is read whole: by the scan of a file without a usable
// summary, and at Open of an indexed file with Options.VerifyDataCRC
// (off by default: it reads the file once more). A mismatch is a
// problem in Info.Problems naming the DataEnd record's offset;
// Info.DataCRCChecked says the check ran and passed.
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
// Writing. NewWriter (any io.Writer; Close flushes but never closes
// it) writes the header; AddSchema and AddChannel return ids from 1;
// WriteMessage copies a message into the one chunk held in memory
// (WriterOptions.ChunkSize, default 1 MiB, compressed zstd, lz4 or not
// at all), written with its Message Index records once full; each
// channel's Schema and Channel records go into the chunk of its first
// message. WriteMetadata writes a Metadata record at once. Close writes
// the last chunk, DataEnd (the data CRC), the summary (schemas,
// channels, statistics, chunk and metadata indexes, each group with a
// Summary Offset) and the footer (the summary CRC). A message over
// MaxMessageBytes, a schema, channel or metadata record over
// DefaultMaxRecordBytes, or schemas and channels past half of it in all
// (the summary repeats them), is refused with ErrTooLarge and the file
// stays valid; the first failure of the io.Writer sticks, returned by every
// later call and by Close (idempotent), and the file is left without
// summary: a Reader scans it. The same calls give the same bytes. A
// Writer is for one goroutine; its callers (clips, `edged export`) bring
// the ROS definitions: it knows no message type. WriteMessage's data is
// copied before it returns.
//
// Bad input. Every length read from the file is checked against the
// file's size, the record it is in, and a cap in Options before anything
// is allocated. A damaged record gives a *CorruptError (errors.Is
// ErrCorrupt) naming its byte offset, never a panic: at Open a file
// with no usable summary is scanned and keeps what precedes the damage;
// during iteration a chunk that does not decompress or fails its CRC
// ends the Iterator with that error (Err) after the messages before it.
package mcap
