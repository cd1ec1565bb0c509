package bag

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/edged-robotics/edged/ros"
)

// Magic opens every format 2.0 bag.
const Magic = "#ROSBAG V2.0\n"

// Defaults of Options.
const (
	DefaultMaxHeaderBytes     = 1 << 20   // one record header
	DefaultMaxConnectionBytes = 16 << 20  // one connection record's data (definitions)
	DefaultMaxChunkBytes      = 1 << 30   // one chunk, compressed or not
	DefaultMaxCacheBytes      = 512 << 20 // uncompressed chunks an Iterator holds at once
)

// Options are the caps of a Reader; zero fields take the defaults. Every
// length read from the file is checked against the file size and these
// caps before anything is allocated.
type Options struct {
	// MaxHeaderBytes caps one record header. Default 1 MiB.
	MaxHeaderBytes int
	// MaxConnectionBytes caps one connection record's data (its
	// message definition). Default 16 MiB.
	MaxConnectionBytes int
	// MaxChunkBytes caps one chunk, compressed and uncompressed (rosbag
	// writes 768 KiB chunks, or one message when it is larger). Default
	// 1 GiB.
	MaxChunkBytes int
	// MaxCacheBytes bounds the uncompressed chunks one Iterator keeps
	// loaded (chunks whose time ranges overlap are held together to
	// merge them; beyond this the least recently used is dropped and
	// read again if needed). Default 512 MiB.
	MaxCacheBytes int
}

func (o Options) withDefaults() Options {
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxConnectionBytes <= 0 {
		o.MaxConnectionBytes = DefaultMaxConnectionBytes
	}
	if o.MaxChunkBytes <= 0 {
		o.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if o.MaxCacheBytes <= 0 {
		o.MaxCacheBytes = DefaultMaxCacheBytes
	}
	return o
}

// Connection is one connection record: a publisher of one topic as the
// recorder saw it.
type Connection struct {
	ID                uint32
	Topic             string // as recorded (the record header's topic)
	Type              string // e.g. sensor_msgs/Image
	MD5Sum            string
	MessageDefinition string // full text with nested MSG: blocks
	CallerID          string // the publisher's node; "" when not recorded
	Latching          bool
	// Publisher carries the same values as a ros.PublisherInfo, one
	// pointer per connection for the Reader's life, so consumers that
	// cache per publisher (capture's dynamic decoding) see a stable key.
	// Read-only.
	Publisher *ros.PublisherInfo
}

// TopicInfo summarizes one topic.
type TopicInfo struct {
	Topic       string
	Type        string // of its first connection
	MD5Sum      string
	Messages    uint64
	Connections int
}

// Info summarizes a bag, like `rosbag info`.
type Info struct {
	Path    string
	Version string // "2.0"
	Size    int64  // file bytes
	// Start and End are the earliest and latest message times; zero for
	// a bag without messages.
	Start, End time.Time
	Messages   uint64
	Chunks     int
	// Compression counts chunks per compression ("none", "bz2", "lz4").
	Compression map[string]int
	// ChunkBytes and UncompressedBytes are the chunks' data sizes in the
	// file and uncompressed.
	ChunkBytes, UncompressedBytes int64
	Topics                        []TopicInfo // sorted by topic
	// Indexed is true when the order of messages came from the bag's own
	// index (connection, chunk info and index data records). False means
	// the index was missing (a bag still being written, or cut short) or
	// unusable and the file was scanned record by record instead; Problems
	// say why, and what of a damaged file was skipped.
	Indexed  bool
	Problems []string
}

// Duration is End - Start.
func (i Info) Duration() time.Duration { return i.End.Sub(i.Start) }

// Reader reads one bag. It is immutable after Open: Connections and Info
// may be called from any goroutine, and several Iterators may run at
// once (each has its own buffers).
type Reader struct {
	path   string
	ra     io.ReaderAt
	closer io.Closer
	size   int64
	opts   Options

	conns   []*Connection // in the order the bag lists them
	byID    map[uint32]int32
	chunks  []chunkRef
	entries []entry // every message, in time order
	info    Info
	spare   sync.Pool // *[]byte: chunk buffers of closed Iterators
}

// Open opens a bag file with default Options.
func Open(path string) (*Reader, error) { return OpenOptions(path, Options{}) }

// OpenOptions opens a bag file: it reads the index, or scans the file
// when the index is missing or unusable (Info says which). The caller
// must Close the Reader.
func OpenOptions(path string, opts Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open bag: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open bag: %w", err)
	}
	r, err := NewReader(f, st.Size(), path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads a bag of size bytes from ra; name is used in errors
// and Info. Close does not close ra.
func NewReader(ra io.ReaderAt, size int64, name string, opts Options) (*Reader, error) {
	r := &Reader{path: name, ra: ra, size: size, opts: opts.withDefaults(), byID: map[uint32]int32{}}
	if err := r.load(); err != nil {
		return nil, err
	}
	r.summarize()
	return r, nil
}

// Close closes the file opened by Open. Iterators must not be used after.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	c := r.closer
	r.closer = nil
	return c.Close()
}

// Connections returns the bag's connections in the order it lists them.
// The slice and its elements are shared: read-only.
func (r *Reader) Connections() []*Connection { return r.conns }

// Info returns the bag's summary. Its slices and map are shared:
// read-only.
func (r *Reader) Info() Info { return r.info }

func (r *Reader) load() error {
	magic := make([]byte, len(Magic))
	if _, err := r.ra.ReadAt(magic, 0); err != nil {
		return &CorruptError{Path: r.path, Chunk: -1, Err: fmt.Errorf("too short for a bag (%d bytes): %w", r.size, err)}
	}
	if string(magic) != Magic {
		if string(magic[:9]) == "#ROSBAG V" {
			return fmt.Errorf("bag %s: version %q: %w (only 2.0; `rosbag fix` converts old bags)", r.path, magic[9:len(magic)-1], ErrUnsupported)
		}
		return &CorruptError{Path: r.path, Chunk: -1, Err: fmt.Errorf("not a ROS bag: no %q magic", Magic[:len(Magic)-1])}
	}
	var rec fileRecord
	hpos := int64(len(Magic))
	if err := r.readRecord(hpos, &rec); err != nil {
		return err
	}
	if rec.h.op != opBagHeader {
		return r.corrupt(hpos, "first record is a %s record, want the bag header", opName(rec.h.op))
	}
	if err := r.readIndex(&rec.h, rec.dataPos+rec.dataLen); err != nil {
		r.info.Problems = append(r.info.Problems, "index not used: "+err.Error())
		r.reset()
		return r.scan(rec.dataPos + rec.dataLen)
	}
	r.info.Indexed = true
	return nil
}

// reset forgets a partly read index before a scan.
func (r *Reader) reset() {
	r.conns, r.chunks, r.entries = nil, nil, nil
	clear(r.byID)
}

// addConnection parses a connection record; a second record for a known
// id is ignored (chunks repeat the connections they use).
func (r *Reader) addConnection(h *recordHeader, data []byte) error {
	if _, ok := r.byID[h.conn]; ok {
		return nil
	}
	c := &Connection{ID: h.conn, Topic: string(h.topic)}
	it := fieldIter{b: data}
	for {
		name, v, ok, err := it.next()
		if err != nil {
			return fmt.Errorf("connection %d data: %w", h.conn, err)
		}
		if !ok {
			break
		}
		switch string(name) {
		case "type":
			c.Type = string(v)
		case "md5sum":
			c.MD5Sum = string(v)
		case "message_definition":
			c.MessageDefinition = string(v)
		case "callerid":
			c.CallerID = string(v)
		case "latching":
			c.Latching = string(v) == "1" || string(v) == "true"
		}
	}
	if c.Type == "" {
		return fmt.Errorf("connection %d (%s) has no type", h.conn, c.Topic)
	}
	c.Publisher = &ros.PublisherInfo{CallerID: c.CallerID, Type: c.Type, MD5Sum: c.MD5Sum,
		MessageDefinition: c.MessageDefinition, Latching: c.Latching}
	r.byID[h.conn] = int32(len(r.conns))
	r.conns = append(r.conns, c)
	return nil
}

// summarize fills Info from the connections, chunks and entries, and
// sorts the entries into the one time order.
func (r *Reader) summarize() {
	sortEntries(r.entries)
	in := &r.info
	in.Path, in.Version, in.Size = r.path, "2.0", r.size
	in.Messages = uint64(len(r.entries))
	in.Compression = map[string]int{}
	for _, c := range r.chunks {
		if c.virtual {
			continue // a loose message record, not a chunk
		}
		in.Chunks++
		in.Compression[c.comp.String()]++
		in.ChunkBytes += c.dataLen
		in.UncompressedBytes += int64(c.size)
	}
	if n := len(r.entries); n > 0 {
		in.Start, in.End = timeOf(r.entries[0].t), timeOf(r.entries[n-1].t)
	}
	counts := make([]uint64, len(r.conns))
	for _, e := range r.entries {
		counts[e.conn]++
	}
	byTopic := map[string]int{}
	for i, c := range r.conns {
		k, ok := byTopic[c.Topic]
		if !ok {
			k = len(in.Topics)
			byTopic[c.Topic] = k
			in.Topics = append(in.Topics, TopicInfo{Topic: c.Topic, Type: c.Type, MD5Sum: c.MD5Sum})
		}
		in.Topics[k].Messages += counts[i]
		in.Topics[k].Connections++
	}
	slices.SortFunc(in.Topics, func(a, b TopicInfo) int {
		switch {
		case a.Topic < b.Topic:
			return -1
		case a.Topic > b.Topic:
			return 1
		}
		return 0
	})
}

func timeOf(ns int64) time.Time { return time.Unix(0, ns) }

// errTruncated marks a record cut off by the end of the file.
var errTruncated = errors.New("truncated by the end of the file")
