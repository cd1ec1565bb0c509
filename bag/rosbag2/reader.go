package rosbag2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/ros"
)

// Default caps (Options).
const (
	DefaultMaxMessageBytes = 256 << 20 // one message (sqlite3 blob, or decompressed)
	DefaultMaxChunkBytes   = 1 << 30   // one MCAP chunk
	DefaultMaxFileBytes    = 64 << 30  // one file-compressed storage file, decompressed
	DefaultMaxOpenFiles    = 64        // storage files an Iterator merges at once
)

// Options caps what a Reader allocates; zero fields take the defaults.
type Options struct {
	MaxMessageBytes int
	MaxChunkBytes   int64
	MaxFileBytes    int64
	// MaxOpenFiles bounds the storage files an Iterator keeps open at
	// once: those whose time ranges overlap where it is. More overlapping
	// files end the Iterator with an error saying so.
	MaxOpenFiles int
	// TempDir receives the decompressed copy of file-compressed storage
	// files (removed by Close); "" is os.TempDir().
	TempDir string
	// VerifyDataCRC checks each MCAP file's data section CRC at Open
	// (mcap.Options.VerifyDataCRC); a mismatch is in Info.Problems.
	VerifyDataCRC bool
}

func (o Options) withDefaults() Options {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxChunkBytes <= 0 {
		o.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxOpenFiles <= 0 {
		o.MaxOpenFiles = DefaultMaxOpenFiles
	}
	return o
}

// ErrNotROS2 is wrapped by Open's error for a path that is neither a
// rosbag2 directory nor an .mcap or .db3 file.
var ErrNotROS2 = errors.New("not a rosbag2 bag")

// Reader reads one rosbag2 bag: a directory with metadata.yaml (every
// storage file it lists, in order) or one .mcap or .db3 file.
type Reader struct {
	info    bag.Info
	meta    *Metadata // nil for a bare storage file
	files   []bagFile
	paths   []string // each file's path as the bag names it (before decompression)
	conns   []*bag.Connection
	byTopic map[string]*bag.Connection
	temps   []string
	opts    Options
}

// IsBag reports whether path looks like a rosbag2 bag: a directory
// holding metadata.yaml, or a file named .mcap, .db3 (or those with
// .zstd); it reads nothing but names.
func IsBag(path string) bool {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		_, err := os.Stat(filepath.Join(path, MetadataFile))
		return err == nil
	}
	p := strings.TrimSuffix(path, ".zstd")
	return strings.HasSuffix(p, ".mcap") || strings.HasSuffix(p, ".db3") || filepath.Base(path) == MetadataFile
}

// bagFile is what Open learned of one storage file, which it closed
// again: an Iterator opens it when the merge reaches it, so that a bag
// of many files keeps few open.
type bagFile struct {
	path   string // to open: the file, or its decompressed copy
	topics []topicMeta
	start  int64 // first log time in ns (0: unknown)
}

// Open opens a rosbag2 bag (see Reader).
func Open(path string, opts Options) (*Reader, error) {
	return OpenContext(context.Background(), path, opts)
}

// OpenContext is Open whose sqlite3 queries end when ctx does (a hostile
// .db3 can make a query endless: a recursive view).
func OpenContext(ctx context.Context, path string, opts Options) (*Reader, error) {
	r := &Reader{opts: opts.withDefaults(), byTopic: map[string]*bag.Connection{}}
	r.info = bag.Info{Path: path, Compression: map[string]int{}, Indexed: true}
	if filepath.Base(path) == MetadataFile {
		path = filepath.Dir(path)
		r.info.Path = path
	}
	paths, err := r.locate(path)
	if err == nil {
		err = r.openFiles(ctx, paths)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("rosbag2 %s: %w", path, err)
	}
	return r, nil
}

// regularFile refuses what is not a regular file: opening a FIFO blocks
// until a writer comes, and a device need not end.
func regularFile(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): a bag's files must be", path, st.Mode().Type())
	}
	return nil
}

// locate reads the metadata of a directory, or takes a bare file.
func (r *Reader) locate(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if !IsBag(path) {
			return nil, fmt.Errorf("%w: want a bag directory, an .mcap or a .db3 file", ErrNotROS2)
		}
		if err := regularFile(path, st); err != nil {
			return nil, err
		}
		if strings.HasSuffix(path, ".zstd") {
			r.meta = &Metadata{CompressionMode: "FILE", CompressionFormat: "zstd"}
		}
		return []string{path}, nil
	}
	mpath := filepath.Join(path, MetadataFile)
	if st, err := os.Stat(mpath); err == nil {
		if err := regularFile(mpath, st); err != nil {
			return nil, err
		}
	}
	b, err := fsutil.ReadFileCapped(mpath, maxMetadataBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotROS2, err)
	}
	if r.meta, err = parseMetadata(b); err != nil {
		return nil, err
	}
	r.info.Version = fmt.Sprintf("rosbag2 metadata %d, %s", r.meta.Version, r.meta.StorageIdentifier)
	return r.meta.files(path)
}

// openFiles opens each storage file to learn its topics, span and
// problems, and closes it again. A file listed twice, by name or as the
// same file under another name, is refused: it would be merged with
// itself, and each copy costs an open file.
func (r *Reader) openFiles(ctx context.Context, paths []string) error {
	var seen []os.FileInfo
	counts := map[string]uint64{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if err := regularFile(p, st); err != nil {
			return err
		}
		for i, o := range seen {
			if os.SameFile(o, st) {
				return fmt.Errorf("%s: %s is the storage file %s again: a bag lists each storage file once", MetadataFile, p, r.paths[i])
			}
		}
		seen = append(seen, st)
		r.info.Size += st.Size()
		r.paths = append(r.paths, p)
		if r.meta != nil && r.meta.CompressionMode == "FILE" {
			if p, err = r.decompressFile(p); err != nil {
				return err
			}
		}
		s, err := openStorage(ctx, p, r.opts)
		if err != nil {
			return err
		}
		f := bagFile{path: p, topics: s.topics()}
		for _, m := range f.topics {
			r.connection(m)
		}
		f.start = r.summarizeFile(ctx, s, counts)
		r.files = append(r.files, f)
		if err := s.close(); err != nil {
			return err
		}
	}
	r.summarizeTopics(counts)
	return nil
}

func openStorage(ctx context.Context, path string, opts Options) (storage, error) {
	base := strings.TrimSuffix(path, ".zstd")
	switch {
	case strings.HasSuffix(base, ".db3"):
		return openSQLite(ctx, path, opts)
	case strings.HasSuffix(base, ".mcap"):
		return openMCAP(path, opts)
	}
	// a decompressed temporary copy: sniff the MCAP magic
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var head [8]byte
	_, _ = io.ReadFull(f, head[:])
	f.Close()
	if string(head[:5]) == "\x89MCAP" {
		return openMCAP(path, opts)
	}
	return openSQLite(ctx, path, opts)
}

// decompressFile writes a zstd-compressed storage file's content to a
// temporary file (capped at MaxFileBytes) and returns its path.
func (r *Reader) decompressFile(path string) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return "", err
	}
	defer zr.Close()
	ext := filepath.Ext(strings.TrimSuffix(path, ".zstd"))
	out, err := os.CreateTemp(r.opts.TempDir, "edged-rosbag2-*"+ext)
	if err != nil {
		return "", fmt.Errorf("decompress %s: %w", path, err)
	}
	r.temps = append(r.temps, out.Name())
	n, err := io.Copy(out, io.LimitReader(zr, r.opts.MaxFileBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > r.opts.MaxFileBytes {
		err = fmt.Errorf("more than %d bytes decompressed (the cap)", r.opts.MaxFileBytes)
	}
	if err != nil {
		return "", fmt.Errorf("decompress %s (zstd file compression): %w", path, err)
	}
	return out.Name(), nil
}

// connection returns the one connection of a topic, made at its first
// sight: a ROS 2 topic has one type in a bag.
func (r *Reader) connection(m topicMeta) *bag.Connection {
	if c := r.byTopic[m.name]; c != nil {
		return c
	}
	def := m.definition
	if m.defEncoding != "" && m.defEncoding != "ros2msg" && !(m.defEncoding == "ros1msg" && m.format == "ros1") {
		def = "" // ros2idl and others: the decoder falls back to known .msg files
	}
	c := &bag.Connection{ID: uint32(len(r.conns)), Topic: m.name, Type: m.typ, MessageDefinition: def}
	c.Publisher = &ros.PublisherInfo{Type: m.typ, MessageDefinition: def, Encoding: encoding(m.format)}
	r.conns = append(r.conns, c)
	r.byTopic[m.name] = c
	return c
}

// encoding maps a rosbag2 serialization format to ros's encodings.
func encoding(format string) string {
	switch format {
	case "cdr", "":
		return ros.EncodingCDR
	case "ros1": // an MCAP of ROS1 messages (an edged clip, `mcap convert` of a .bag)
		return ros.EncodingROS1
	}
	return format // anything else: capture counts it as an unknown type
}

// Close removes temporary copies (the storage files are open only while
// an Iterator reads them).
func (r *Reader) Close() error {
	var errs []error
	for _, t := range r.temps {
		errs = append(errs, os.Remove(t))
	}
	r.files, r.temps = nil, nil
	return errors.Join(errs...)
}

// Connections returns one connection per topic (type, definition, and a
// Publisher whose Encoding is ros.EncodingCDR).
func (r *Reader) Connections() []*bag.Connection { return r.conns }

// Info summarizes the bag like bag.Info does for ROS1 bags: Version
// names the metadata version and storage; Problems collects what the
// storage files reported.
func (r *Reader) Info() bag.Info { return r.info }

// summarizeFile adds an open storage file to Info; it returns the
// file's first log time (0 when unknown).
func (r *Reader) summarizeFile(ctx context.Context, f storage, counts map[string]uint64) int64 {
	r.info.Problems = append(r.info.Problems, f.problems()...)
	r.info.Indexed = r.info.Indexed && f.indexed()
	ms, ok := f.(*mcapStorage)
	if !ok {
		return r.sqliteSpan(ctx, f.(*sqliteStorage), counts)
	}
	in := ms.r.Info()
	r.info.Chunks += in.Chunks
	for k, v := range in.Compression {
		r.info.Compression[k] += v
	}
	for _, c := range ms.r.Channels() {
		counts[c.Topic] += in.ChannelCounts[c.ID]
	}
	r.span(int64(in.Start), int64(in.End), in.Messages)
	return int64(in.Start)
}

func (r *Reader) summarizeTopics(counts map[string]uint64) {
	for _, c := range r.conns {
		r.info.Topics = append(r.info.Topics, bag.TopicInfo{Topic: c.Topic, Type: c.Type, Messages: counts[c.Topic], Connections: 1})
	}
	slices.SortFunc(r.info.Topics, func(a, b bag.TopicInfo) int { return strings.Compare(a.Topic, b.Topic) })
}

func (r *Reader) span(start, end int64, n uint64) {
	if n == 0 {
		return
	}
	s, e := time.Unix(0, start), time.Unix(0, end)
	if r.info.Messages == 0 || s.Before(r.info.Start) {
		r.info.Start = s
	}
	if e.After(r.info.End) {
		r.info.End = e
	}
	r.info.Messages += n
}

// sqliteSpan adds a .db3 file's span and counts; it returns its first
// log time (0 when unknown).
func (r *Reader) sqliteSpan(ctx context.Context, s *sqliteStorage, counts map[string]uint64) int64 {
	var start, end, n int64
	row := s.db.QueryRowContext(ctx, `SELECT COALESCE(MIN(timestamp),0), COALESCE(MAX(timestamp),0), COUNT(*) FROM messages`)
	if err := row.Scan(&start, &end, &n); err != nil {
		r.info.Problems = append(r.info.Problems, fmt.Sprintf("%s: messages table unreadable: %v", s.path, err))
		return 0
	}
	r.span(start, end, uint64(n))
	rows, err := s.db.QueryContext(ctx, `SELECT topic_id, COUNT(*) FROM messages GROUP BY topic_id`)
	if err != nil {
		return start
	}
	defer rows.Close()
	for rows.Next() {
		var id, c int64
		if rows.Scan(&id, &c) == nil {
			if i := slices.Index(s.ids, id); i >= 0 {
				counts[s.metas[i].name] += uint64(c)
			}
		}
	}
	return start
}
