package mcap

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

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

// Default caps (Options).
const (
	DefaultMaxRecordBytes = 64 << 20  // a record outside chunks (schema, channel, message, summary)
	DefaultMaxChunkBytes  = 1 << 30   // one chunk, compressed or uncompressed
	DefaultMaxCacheBytes  = 512 << 20 // uncompressed chunks an Iterator holds at once
)

// Options caps what a Reader allocates; zero fields take the defaults.
type Options struct {
	MaxRecordBytes int64
	MaxChunkBytes  int64
	// MaxCacheBytes bounds the chunks an Iterator keeps decompressed
	// while their time ranges overlap; past it the Iterator fails.
	MaxCacheBytes int64
	// VerifyDataCRC makes Open check the data section CRC (DataEnd's
	// data_section_crc, when not 0) of an indexed file too, which reads
	// the whole data section once more. A file without a usable summary
	// is read whole by the scan anyway, and always checked.
	VerifyDataCRC bool
}

func (o Options) withDefaults() Options {
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if o.MaxChunkBytes <= 0 {
		o.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if o.MaxCacheBytes <= 0 {
		o.MaxCacheBytes = DefaultMaxCacheBytes
	}
	return o
}

// Schema is a Schema record: how a channel's messages are defined.
type Schema struct {
	ID       uint16
	Name     string // e.g. sensor_msgs/msg/Image
	Encoding string // e.g. ros2msg
	Data     []byte // e.g. the .msg text with its dependencies
}

// Channel is a Channel record: a topic and its encoding.
type Channel struct {
	ID              uint16
	SchemaID        uint16 // 0: no schema
	Topic           string
	MessageEncoding string // e.g. cdr
	Metadata        map[string]string
	Schema          *Schema // nil when SchemaID is 0 or unknown
}

// Info describes a file as Open found it.
type Info struct {
	Path              string
	Size              int64
	Profile, Library  string // the Header record
	Indexed           bool   // read through the summary's chunk indexes; false: scanned
	Chunks            int
	Messages          uint64
	Start, End        uint64 // log times in ns of the first and last message
	Compression       map[string]int
	MetadataRecords   int
	Problems          []string // damage found at Open (a cut or corrupt record), each with its offset
	ChannelCounts     map[uint16]uint64
	SummaryCRCChecked bool
	// DataCRCChecked: the data section matched DataEnd's CRC (a scanned
	// file, or Options.VerifyDataCRC); a mismatch is in Problems instead.
	DataCRCChecked bool
}

// Reader reads one MCAP file. It is immutable after Open (or NewReader)
// and safe for concurrent use; each Iterator is for one goroutine.
type Reader struct {
	ra       io.ReaderAt
	closer   io.Closer
	size     int64
	opts     Options
	info     Info
	schemas  map[uint16]*Schema
	channels map[uint16]*Channel
	blocks   []block // chunks and loose messages, by start time then offset
	metadata []Metadata
	sumStart int64 // the summary section's offset (0: none)
}

// Metadata is a Metadata record (rosbag2 writes serialized_metadata).
type Metadata struct {
	Name     string
	Metadata map[string]string
}

// block is a unit the Iterator loads: a chunk, or one message record
// outside any chunk.
type block struct {
	offset     int64 // of the record
	length     uint64
	start, end uint64 // log time range
	chunk      bool
}

// Open opens an MCAP file and reads its summary (or scans it).
func Open(path string, opts Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mcap: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mcap: %w", err)
	}
	r, err := NewReader(f, st.Size(), path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads the MCAP file in ra (size bytes; name for messages):
// through its summary's chunk indexes when it has them, else by a
// linear scan that records what it could not read in Info.Problems.
func NewReader(ra io.ReaderAt, size int64, name string, opts Options) (*Reader, error) {
	r := &Reader{ra: ra, size: size, opts: opts.withDefaults(), schemas: map[uint16]*Schema{},
		channels: map[uint16]*Channel{}}
	r.info = Info{Path: name, Size: size, Compression: map[string]int{}, ChannelCounts: map[uint16]uint64{}}
	head := make([]byte, len(Magic))
	if _, err := ra.ReadAt(head, 0); err != nil || !bytes.Equal(head, Magic) {
		return nil, fmt.Errorf("mcap %s: %w", name, corrupt(0, "no MCAP magic (not an MCAP file)"))
	}
	if err := r.readHeader(); err != nil {
		return nil, fmt.Errorf("mcap %s: %w", name, err)
	}
	if err := r.readSummary(); err != nil {
		r.info.Problems = append(r.info.Problems, fmt.Sprintf("summary unusable (%v); scanned the file instead", err))
		r.resetIndex()
	}
	if !r.info.Indexed {
		r.scan()
	} else if r.opts.VerifyDataCRC {
		r.verifyIndexedDataCRC()
	}
	r.finish()
	return r, nil
}

func (r *Reader) resetIndex() {
	r.schemas, r.channels, r.blocks, r.metadata = map[uint16]*Schema{}, map[uint16]*Channel{}, nil, nil
	r.info.Indexed, r.info.Chunks, r.info.Messages = false, 0, 0
	r.info.Compression, r.info.ChannelCounts = map[string]int{}, map[uint16]uint64{}
}

// finish links channels to schemas and sorts the blocks.
func (r *Reader) finish() {
	for _, c := range r.channels {
		c.Schema = r.schemas[c.SchemaID]
	}
	slices.SortStableFunc(r.blocks, func(a, b block) int {
		if a.start != b.start {
			return cmpU64(a.start, b.start)
		}
		return cmpU64(uint64(a.offset), uint64(b.offset))
	})
	if len(r.blocks) > 0 && r.info.Start == 0 && r.info.End == 0 {
		r.info.Start, r.info.End = r.blocks[0].start, r.blocks[0].end
		for _, b := range r.blocks {
			r.info.End = max(r.info.End, b.end)
		}
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Close closes the file when Open opened it.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Info describes the file.
func (r *Reader) Info() Info { return r.info }

// Channels returns the channels by id order.
func (r *Reader) Channels() []*Channel {
	out := make([]*Channel, 0, len(r.channels))
	for _, c := range r.channels {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Channel) int { return int(a.ID) - int(b.ID) })
	return out
}

// Metadata returns the Metadata records the summary indexes (indexed)
// or the scan found.
func (r *Reader) Metadata() []Metadata { return r.metadata }

// readRecord reads the record at off: its opcode and its content, capped.
func (r *Reader) readRecord(off int64, limit int64) (op byte, content []byte, err error) {
	op, n, err := r.recordHeader(off)
	if err != nil {
		return 0, nil, err
	}
	if int64(n) > limit {
		return 0, nil, corrupt(off, "record (opcode 0x%02x) of %d bytes, more than the cap of %d", op, n, limit)
	}
	content = make([]byte, n)
	if _, err := r.ra.ReadAt(content, off+recordPrefix); err != nil {
		return 0, nil, corrupt(off, "record unreadable: %v", err)
	}
	return op, content, nil
}

// recordHeader reads the opcode and length at off and checks that the
// record fits in the file.
func (r *Reader) recordHeader(off int64) (byte, uint64, error) {
	var p [recordPrefix]byte
	if off < 0 || off+recordPrefix > r.size {
		return 0, 0, corrupt(off, "record cut short by the end of the file (%d bytes)", r.size)
	}
	if _, err := r.ra.ReadAt(p[:], off); err != nil {
		return 0, 0, corrupt(off, "record unreadable: %v", err)
	}
	c := cursor{b: p[1:]}
	n := c.u64()
	if n > uint64(r.size-off-recordPrefix) {
		return 0, 0, corrupt(off, "record (opcode 0x%02x) of %d bytes cut short by the end of the file (%d bytes)", p[0], n, r.size)
	}
	return p[0], n, nil
}

func (r *Reader) readHeader() error {
	op, content, err := r.readRecord(int64(len(Magic)), r.opts.MaxRecordBytes)
	if err != nil {
		return err
	}
	if op != opHeader {
		return corrupt(int64(len(Magic)), "first record has opcode 0x%02x, want the header (0x01)", op)
	}
	c := cursor{b: content}
	r.info.Profile, r.info.Library = c.str(), c.str()
	if c.err {
		return corrupt(int64(len(Magic)), "header record malformed")
	}
	return nil
}

// readSummary reads the footer and the summary section: schemas,
// channels, chunk indexes, statistics. It leaves Indexed false when
// the file has no footer or no chunk indexes (then it is scanned).
func (r *Reader) readSummary() error {
	foot := r.size - footerSize
	if foot < int64(2*len(Magic)) {
		return nil
	}
	tail := make([]byte, footerSize)
	if _, err := r.ra.ReadAt(tail, foot); err != nil || !bytes.Equal(tail[footerSize-8:], Magic) || tail[0] != opFooter {
		r.info.Problems = append(r.info.Problems, fmt.Sprintf("no footer at the end of the file (cut short or still being written): scanned the file from the start (%d bytes)", r.size))
		return nil
	}
	c := cursor{b: tail[recordPrefix:]}
	start, _, crc := c.u64(), c.u64(), c.u32()
	if start == 0 {
		return nil // a valid file without a summary: scan
	}
	if start < uint64(2*len(Magic)) || start > uint64(foot) || uint64(foot)-start > uint64(r.opts.MaxRecordBytes) {
		return corrupt(foot, "footer's summary start %d outside the file", start)
	}
	sum := make([]byte, uint64(foot)-start)
	if _, err := r.ra.ReadAt(sum, int64(start)); err != nil {
		return corrupt(int64(start), "summary unreadable: %v", err)
	}
	if crc != 0 {
		h := crc32.NewIEEE()
		h.Write(sum)
		h.Write(tail[:footerSize-8-4])
		if h.Sum32() != crc {
			return corrupt(int64(start), "summary CRC mismatch")
		}
		r.info.SummaryCRCChecked = true
	}
	r.sumStart = int64(start)
	return r.parseSummary(sum, int64(start))
}

// dataEndSize is a DataEnd record of format version 0: prefix and CRC.
const dataEndSize = recordPrefix + 4

// verifyIndexedDataCRC finds the DataEnd record just before the summary
// and checks the data section against its CRC.
func (r *Reader) verifyIndexedDataCRC() {
	off := r.sumStart - dataEndSize
	if r.sumStart == 0 || off < int64(len(Magic)) {
		return // no summary start to find DataEnd by
	}
	op, n, err := r.recordHeader(off)
	if err != nil || op != opDataEnd || n != 4 {
		r.problem(corrupt(off, "no DataEnd record before the summary at %d: data section CRC not checked", r.sumStart))
		return
	}
	r.checkDataCRC(off, n)
}

// checkDataCRC checks the DataEnd record at off (content n bytes): its
// data_section_crc, when not 0, is the CRC-32 of every byte before it.
func (r *Reader) checkDataCRC(off int64, n uint64) {
	if n < 4 {
		r.problem(corrupt(off, "DataEnd record of %d bytes, shorter than its CRC", n))
		return
	}
	var b [4]byte
	if _, err := r.ra.ReadAt(b[:], off+recordPrefix); err != nil {
		r.problem(corrupt(off, "DataEnd record unreadable: %v", err))
		return
	}
	want := (&cursor{b: b[:]}).u32()
	if want == 0 {
		return // the writer did not compute it
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(r.ra, 0, off)); err != nil {
		r.problem(corrupt(off, "data section unreadable for its CRC: %v", err))
		return
	}
	if got := h.Sum32(); got != want {
		r.info.Problems = append(r.info.Problems, corrupt(off, "data section CRC mismatch (DataEnd says %08x, bytes 0..%d give %08x): the data section is damaged somewhere before this offset", want, off, got).Error())
		return
	}
	r.info.DataCRCChecked = true
}

func (r *Reader) parseSummary(sum []byte, base int64) error {
	off := int64(0)
	for off < int64(len(sum)) {
		c := cursor{b: sum[off:]}
		op, n := c.u8(), c.u64()
		body := c.take(n)
		if c.err {
			return corrupt(base+off, "summary record cut short")
		}
		if err := r.summaryRecord(op, body, base+off); err != nil {
			return err
		}
		off += recordPrefix + int64(n)
	}
	if r.info.Chunks > 0 {
		r.info.Indexed = true
	}
	return nil
}

func (r *Reader) summaryRecord(op byte, body []byte, off int64) error {
	switch op {
	case opSchema, opChannel:
		return r.definitionRecord(op, body, off, r.schemas, r.channels)
	case opChunkIndex:
		return r.chunkIndex(body, off)
	case opStatistics:
		c := cursor{b: body}
		r.info.Messages = c.u64()
		c.take(2 + 4 + 4 + 4 + 4)
		r.info.Start, r.info.End = c.u64(), c.u64()
		counts := cursor{b: c.bytes32()}
		for len(counts.b) > 0 && !counts.err {
			id := counts.u16()
			r.info.ChannelCounts[id] = counts.u64()
		}
		if c.err || counts.err {
			return corrupt(off, "statistics record malformed")
		}
	case opMetadataIndex:
		return r.metadataIndex(body, off)
	}
	return nil
}

// definitionRecord parses a Schema or Channel record into the maps.
func (r *Reader) definitionRecord(op byte, body []byte, off int64, schemas map[uint16]*Schema, channels map[uint16]*Channel) error {
	c := cursor{b: body}
	if op == opSchema {
		s := &Schema{ID: c.u16(), Name: c.str(), Encoding: c.str()}
		s.Data = bytes.Clone(c.bytes32())
		if c.err || s.ID == 0 {
			return corrupt(off, "schema record malformed")
		}
		schemas[s.ID] = s
		return nil
	}
	ch := &Channel{ID: c.u16(), SchemaID: c.u16(), Topic: c.str(), MessageEncoding: c.str()}
	ch.Metadata = c.strMap()
	if c.err {
		return corrupt(off, "channel record malformed")
	}
	ch.Schema = schemas[ch.SchemaID]
	channels[ch.ID] = ch
	return nil
}

func (r *Reader) chunkIndex(body []byte, off int64) error {
	c := cursor{b: body}
	b := block{chunk: true}
	b.start, b.end = c.u64(), c.u64()
	start, length := c.u64(), c.u64()
	c.bytes32() // message index offsets: the iterator reads whole chunks
	c.u64()     // message index length
	comp := c.str()
	c.u64() // compressed size
	c.u64() // uncompressed size
	if c.err || start < uint64(len(Magic)) || start > uint64(r.size) || length > uint64(r.size)-start || length < recordPrefix {
		return corrupt(off, "chunk index record malformed or pointing outside the file")
	}
	b.offset, b.length = int64(start), length-recordPrefix
	r.blocks = append(r.blocks, b)
	r.info.Chunks++
	r.info.Compression[comp]++
	return nil
}

func (r *Reader) metadataIndex(body []byte, off int64) error {
	c := cursor{b: body}
	at, _ := c.u64(), c.u64()
	if c.err {
		return corrupt(off, "metadata index malformed")
	}
	r.info.MetadataRecords++
	op, content, err := r.readRecord(int64(at), r.opts.MaxRecordBytes)
	if err != nil || op != opMetadata {
		return corrupt(int64(at), "metadata index points at no metadata record")
	}
	return r.addMetadata(content, int64(at))
}

func (r *Reader) addMetadata(content []byte, off int64) error {
	c := cursor{b: content}
	m := Metadata{Name: c.str(), Metadata: c.strMap()}
	if c.err {
		return corrupt(off, "metadata record malformed")
	}
	r.metadata = append(r.metadata, m)
	return nil
}
