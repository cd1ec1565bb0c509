package mcap

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

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

// Writer defaults and caps (WriterOptions).
const (
	// DefaultChunkSize: a chunk is closed (compressed and written) once
	// its uncompressed records reach this many bytes.
	DefaultChunkSize = 1 << 20
	// MaxChunkSize bounds WriterOptions.ChunkSize: the writer holds one
	// chunk (and its compressed form) in memory.
	MaxChunkSize = 64 << 20
	// DefaultMaxMessageBytes refuses a message (and a schema, channel or
	// metadata record) larger than a Reader with default Options reads.
	DefaultMaxMessageBytes = DefaultMaxRecordBytes
	// DefaultLibrary is the Header's library when WriterOptions has none.
	DefaultLibrary = "edged"
	// maxDefinitionBytes bounds the schema and channel records together:
	// the summary repeats them all, and a Reader with default Options
	// reads a summary of at most DefaultMaxRecordBytes (the rest of it is
	// the chunk indexes, about 100 bytes a chunk).
	maxDefinitionBytes = DefaultMaxRecordBytes / 2
)

// Chunk compressions (WriterOptions.Compression).
const (
	CompressionZstd = "zstd" // the default
	CompressionLZ4  = "lz4"
	CompressionNone = "none" // written as "" in the file, as the specification says
)

// ErrTooLarge is wrapped by the error for a record over its cap: the
// record is refused and the file stays valid.
var ErrTooLarge = errors.New("mcap: record too large")

// ErrWriterClosed is returned by every call after Close.
var ErrWriterClosed = errors.New("mcap: writer closed")

// WriterOptions configure a Writer; zero fields take the defaults.
type WriterOptions struct {
	Profile string // the Header's profile: "ros1", "ros2", or "" for none
	Library string // the Header's library; default DefaultLibrary
	// ChunkSize in uncompressed bytes; default DefaultChunkSize, at most
	// MaxChunkSize. A message larger than it gets a chunk of its own.
	ChunkSize int64
	// Compression of chunks: CompressionZstd (default), CompressionLZ4
	// or CompressionNone.
	Compression string
	// MaxMessageBytes refuses larger messages with ErrTooLarge; default
	// and at most DefaultMaxMessageBytes.
	MaxMessageBytes int64
}

func (o WriterOptions) withDefaults() (WriterOptions, error) {
	if o.Library == "" {
		o.Library = DefaultLibrary
	}
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.ChunkSize < 0 || o.ChunkSize > MaxChunkSize {
		return o, fmt.Errorf("mcap: WriterOptions.ChunkSize %d: must be between 1 and %d bytes (0 takes %d)", o.ChunkSize, MaxChunkSize, DefaultChunkSize)
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxMessageBytes < 0 || o.MaxMessageBytes > DefaultMaxMessageBytes {
		return o, fmt.Errorf("mcap: WriterOptions.MaxMessageBytes %d: must be between 1 and %d (0 takes %d)", o.MaxMessageBytes, DefaultMaxMessageBytes, DefaultMaxMessageBytes)
	}
	if o.Compression == "" {
		o.Compression = CompressionZstd
	}
	return o, nil
}

// Writer writes one MCAP file. It is for one goroutine.
type Writer struct {
	out      output
	opts     WriterOptions
	comp     compressor
	chunk    chunkBuilder
	schemas  []definition // schema id i+1
	channels []channel    // channel id i+1
	stats    statistics
	defBytes int // the schema and channel records' size (maxDefinitionBytes)
	// The summary's groups as they grow: one record per chunk and per
	// metadata record.
	chunkIndexes, metadataIndexes []byte
	closed                        bool
	err                           error // sticky: the first failure to write
}

// definition is a Schema or Channel record, encoded once: it goes into
// the first chunk with a message that needs it, and into the summary.
type definition struct {
	record  []byte
	written bool
}

type channel struct {
	definition
	schemaID uint16
	messages uint64
}

// statistics is what the Statistics record says at Close.
type statistics struct {
	messages, metadata uint64
	chunks             uint32
	start, end         uint64
}

// NewWriter writes the magic and the Header to w and returns a Writer
// for the rest. Close writes the summary; it does not close w.
func NewWriter(w io.Writer, o WriterOptions) (*Writer, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	wr := &Writer{opts: o, out: output{w: bufio.NewWriterSize(w, 64<<10)}}
	if wr.comp, err = newCompressor(o.Compression, o.ChunkSize); err != nil {
		return nil, err
	}
	b, at := beginRecord(append([]byte(nil), Magic...), opHeader)
	b = endRecord(putStr(putStr(b, o.Profile), o.Library), at)
	if err := wr.out.write(b); err != nil {
		return nil, wr.fail(err)
	}
	return wr, nil
}

// Size is the number of bytes written to w so far; the chunk being
// filled is not counted until it is written.
func (w *Writer) Size() int64 { return w.out.n }

// AddSchema registers a schema (encoding e.g. "ros1msg", "ros2msg";
// data the message definition) and returns its id, from 1 on.
func (w *Writer) AddSchema(name, encoding string, data []byte) (uint16, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	if name == "" || encoding == "" {
		return 0, fmt.Errorf("mcap: schema %q with encoding %q: both must be set", name, encoding)
	}
	if len(w.schemas) == 0xffff {
		return 0, fmt.Errorf("mcap: schema %q: a file holds at most 65535 schemas", name)
	}
	id := uint16(len(w.schemas) + 1)
	size := 2 + 4 + len(name) + 4 + len(encoding) + 4 + len(data)
	if err := w.definitionFits("schema "+name, size); err != nil {
		return 0, err
	}
	b, at := beginRecord(make([]byte, 0, recordPrefix+size), opSchema)
	b = endRecord(putBytes32(putStr(putStr(putU16(b, id), name), encoding), data), at)
	w.schemas = append(w.schemas, definition{record: b})
	w.defBytes += len(b)
	return id, nil
}

// AddChannel registers a topic (schemaID from AddSchema, or 0 for none;
// messageEncoding e.g. "ros1", "cdr") and returns its id, from 1 on.
// The metadata is copied.
func (w *Writer) AddChannel(schemaID uint16, topic, messageEncoding string, metadata map[string]string) (uint16, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	if topic == "" || messageEncoding == "" {
		return 0, fmt.Errorf("mcap: channel %q with message encoding %q: both must be set", topic, messageEncoding)
	}
	if int(schemaID) > len(w.schemas) {
		return 0, fmt.Errorf("mcap: channel %q: schema %d not added (AddSchema first, or 0 for none)", topic, schemaID)
	}
	if len(w.channels) == 0xffff {
		return 0, fmt.Errorf("mcap: channel %q: a file holds at most 65535 channels", topic)
	}
	id := uint16(len(w.channels) + 1)
	size := 2 + 2 + 4 + len(topic) + 4 + len(messageEncoding) + strMapSize(metadata)
	if err := w.definitionFits("channel "+topic, size); err != nil {
		return 0, err
	}
	b, at := beginRecord(make([]byte, 0, recordPrefix+size), opChannel)
	b = endRecord(putStrMap(putStr(putStr(putU16(putU16(b, id), schemaID), topic), messageEncoding), metadata), at)
	w.channels = append(w.channels, channel{definition: definition{record: b}, schemaID: schemaID})
	w.defBytes += len(b)
	return id, nil
}

// WriteMessage adds a message (times in ns) to the current chunk; data
// is copied before it returns. A message over MaxMessageBytes is refused
// with ErrTooLarge.
func (w *Writer) WriteMessage(channelID uint16, sequence uint32, logTime, publishTime uint64, data []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	if channelID == 0 || int(channelID) > len(w.channels) {
		return fmt.Errorf("mcap: message on channel %d: channel not added (AddChannel first)", channelID)
	}
	ch := &w.channels[channelID-1]
	if int64(len(data)) > w.opts.MaxMessageBytes {
		return w.fits("message on channel "+topicOf(ch), len(data), w.opts.MaxMessageBytes)
	}
	size := recordPrefix + messageFields + len(data)
	if !ch.written {
		size += len(ch.record)
		if ch.schemaID != 0 && !w.schemas[ch.schemaID-1].written {
			size += len(w.schemas[ch.schemaID-1].record)
		}
	}
	if w.chunk.messages > 0 && int64(len(w.chunk.buf)+size) > w.opts.ChunkSize {
		if err := w.flushChunk(); err != nil {
			return err
		}
	}
	if w.chunk.buf == nil {
		w.chunk.buf = make([]byte, 0, w.opts.ChunkSize) // the chunk's size, once: no growing by appends
	}
	w.addDefinitions(ch)
	w.chunk.add(channelID, sequence, logTime, publishTime, data)
	w.count(ch, logTime)
	if int64(len(w.chunk.buf)) >= w.opts.ChunkSize {
		return w.flushChunk()
	}
	return nil
}

// messageFields: channel id, sequence, log time, publish time.
const messageFields = 2 + 4 + 8 + 8

// addDefinitions puts the channel's records (its schema's first) into
// the chunk the first time a message needs them, so a reader that reads
// the file front to back meets them before the message.
func (w *Writer) addDefinitions(ch *channel) {
	if ch.written {
		return
	}
	if ch.schemaID != 0 {
		if s := &w.schemas[ch.schemaID-1]; !s.written {
			w.chunk.buf = append(w.chunk.buf, s.record...)
			s.written = true
		}
	}
	w.chunk.buf = append(w.chunk.buf, ch.record...)
	ch.written = true
}

func (w *Writer) count(ch *channel, logTime uint64) {
	if w.stats.messages == 0 {
		w.stats.start, w.stats.end = logTime, logTime
	}
	w.stats.start, w.stats.end = min(w.stats.start, logTime), max(w.stats.end, logTime)
	w.stats.messages++
	ch.messages++
}

// WriteMetadata writes a Metadata record (name, and the map sorted by
// key) to the data section and indexes it in the summary.
func (w *Writer) WriteMetadata(name string, metadata map[string]string) error {
	if err := w.usable(); err != nil {
		return err
	}
	size := 4 + len(name) + strMapSize(metadata)
	if err := w.fits("metadata "+name, size, DefaultMaxRecordBytes); err != nil {
		return err
	}
	off := w.out.n
	b, at := beginRecord(make([]byte, 0, recordPrefix+size), opMetadata)
	b = endRecord(putStrMap(putStr(b, name), metadata), at)
	if err := w.out.write(b); err != nil {
		return w.fail(err)
	}
	ix, at := beginRecord(w.metadataIndexes, opMetadataIndex)
	w.metadataIndexes = endRecord(putStr(putU64(putU64(ix, uint64(off)), uint64(len(b))), name), at)
	w.stats.metadata++
	return nil
}

// Close writes the last chunk, DataEnd with the data section's CRC,
// the summary, the summary offsets and the footer with the summary's
// CRC, and flushes. It does not close the io.Writer. A second Close
// returns what the first did.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.comp.close()
	if w.err != nil {
		return w.err
	}
	if err := w.flushChunk(); err != nil {
		return err
	}
	if err := w.finish(); err != nil {
		return w.fail(err)
	}
	return nil
}

// usable refuses calls after Close or after a write failed.
func (w *Writer) usable() error {
	if w.closed {
		return ErrWriterClosed
	}
	return w.err
}

// fits refuses a record of n bytes over limit.
func (w *Writer) fits(what string, n int, limit int64) error {
	if int64(n) > limit {
		return fmt.Errorf("%w: %s of %d bytes, more than the cap of %d: refused, the file stays valid", ErrTooLarge, what, n, limit)
	}
	return nil
}

// definitionFits refuses a schema or channel record of n bytes that
// would take the summary past what a Reader reads.
func (w *Writer) definitionFits(what string, n int) error {
	if err := w.fits(what, n, DefaultMaxRecordBytes); err != nil {
		return err
	}
	if left := maxDefinitionBytes - w.defBytes; recordPrefix+n > left {
		return fmt.Errorf("%w: %s of %d bytes: the schemas and channels already added leave %d of the summary's %d for them: refused, the file stays valid", ErrTooLarge, what, n, left, maxDefinitionBytes)
	}
	return nil
}

// fail makes err sticky: the file is incomplete from here on.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = fmt.Errorf("mcap: writing the file failed, it is incomplete (a reader scans what was written): %w", err)
	}
	return w.err
}

func topicOf(ch *channel) string {
	c := cursor{b: ch.record[recordPrefix+4:]}
	return c.str()
}

// output counts the bytes written and keeps the CRC of those since the
// last reset (the data section, then the summary).
type output struct {
	w   *bufio.Writer
	n   int64
	crc uint32
}

func (o *output) write(p []byte) error {
	o.crc = crc32.Update(o.crc, crc32.IEEETable, p)
	n, err := o.w.Write(p)
	o.n += int64(n)
	return err
}
