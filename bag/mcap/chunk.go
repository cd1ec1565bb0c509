package mcap

import (
	"bytes"
	"hash/crc32"
	"io"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// loader reads blocks (a chunk, or a loose message record) into memory,
// reusing buffers and one zstd decoder. It belongs to one goroutine.
type loader struct {
	zr   *zstd.Decoder
	free []*loaded
}

// loaded is a block in memory: its records and its messages in log-time
// order (stable: ties keep the file's order).
type loaded struct {
	blk         block
	order       int // the block's index: ties between blocks go to the earlier
	start, end  uint64
	compression string
	raw, buf    []byte // the record as read; the decompression buffer
	data        []byte // the uncompressed records: within raw or buf
	entries     []entry
	defs        []defRecord
	pos         int
}

type entry struct {
	t, pub  uint64
	seq     uint32
	channel uint16
	lo, hi  int // the message data in loaded.data
}

type defRecord struct {
	op   byte
	body []byte
	off  int64
}

func (c *loaded) bytes() int64 { return int64(cap(c.raw) + cap(c.buf)) }

func (ld *loader) close() {
	if ld.zr != nil {
		ld.zr.Close()
		ld.zr = nil
	}
}

func (ld *loader) recycle(c *loaded) {
	if len(ld.free) < 4 {
		ld.free = append(ld.free, c)
	}
}

func (ld *loader) get() *loaded {
	if n := len(ld.free); n > 0 {
		c := ld.free[n-1]
		ld.free = ld.free[:n-1]
		*c = loaded{raw: c.raw[:0], buf: c.buf[:0], entries: c.entries[:0], defs: c.defs[:0]}
		return c
	}
	return &loaded{}
}

func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n)
}

// load reads block b: for a chunk, its records decompressed and checked
// against its CRC, then indexed.
func (ld *loader) load(r *Reader, b block) (*loaded, error) {
	limit := r.opts.MaxRecordBytes
	if b.chunk {
		limit = r.opts.MaxChunkBytes
	}
	if int64(b.length) > limit {
		return nil, corrupt(b.offset, "record of %d bytes, more than the cap of %d", b.length, limit)
	}
	op, n, err := r.recordHeader(b.offset)
	if err != nil {
		return nil, err
	}
	if n != b.length || (b.chunk && op != opChunk) || (!b.chunk && op != opMessage) {
		return nil, corrupt(b.offset, "index points at a record of opcode 0x%02x and %d bytes, not the one indexed", op, n)
	}
	c := ld.get()
	c.blk = b
	c.raw = grow(c.raw, int(n))
	if _, err := r.ra.ReadAt(c.raw, b.offset+recordPrefix); err != nil {
		return nil, corrupt(b.offset, "record unreadable: %v", err)
	}
	if !b.chunk {
		return c, ld.index(c, b.offset, c.raw, true)
	}
	if err := ld.decompress(r, c); err != nil {
		return nil, err
	}
	return c, ld.index(c, b.offset, c.data, false)
}

// decompress fills c.data with the chunk's uncompressed records.
func (ld *loader) decompress(r *Reader, c *loaded) error {
	off := c.blk.offset
	h := cursor{b: c.raw}
	c.start, c.end = h.u64(), h.u64()
	usize, crc := h.u64(), h.u32()
	c.compression = h.str()
	records := h.take(h.u64())
	if h.err {
		return corrupt(off, "chunk record malformed")
	}
	if usize > uint64(r.opts.MaxChunkBytes) {
		return corrupt(off, "chunk of %d uncompressed bytes, more than the cap of %d", usize, r.opts.MaxChunkBytes)
	}
	var err error
	switch c.compression {
	case "":
		c.data = records
		if uint64(len(records)) != usize {
			return corrupt(off, "uncompressed chunk of %d bytes, its header says %d", len(records), usize)
		}
	case "zstd":
		err = ld.zstd(r, c, records, int(usize))
	case "lz4":
		err = lz4Decode(c, records, int(usize))
	default:
		return corrupt(off, "chunk compression %q not supported (none, zstd and lz4 are)", c.compression)
	}
	if err != nil {
		return corrupt(off, "chunk does not decompress (%s): %v", c.compression, err)
	}
	if crc != 0 && crc32.ChecksumIEEE(c.data) != crc {
		return corrupt(off, "chunk CRC mismatch: the chunk is damaged")
	}
	return nil
}

// zstd decompresses a chunk into a buffer of exactly its header's size.
// The decoder's window is not what bounds memory here (DecodeAll writes
// into dst and keeps no window of its own), so a frame with a large
// window and no content size, as streaming compressors write, is
// accepted; what a bomb could grow, the output, is capped at the
// chunk's uncompressed size by the buffer's capacity (and MaxChunkBytes).
func (ld *loader) zstd(r *Reader, c *loaded, src []byte, usize int) error {
	if ld.zr == nil {
		limit := uint64(max(r.opts.MaxChunkBytes, zstd.MinWindowSize))
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderMaxWindow(min(limit, maxZstdWindow)))
		if err != nil {
			return err
		}
		ld.zr = zr
	}
	buf := grow(c.buf, usize)
	out, err := ld.zr.DecodeAll(src, buf[:0:usize])
	if err != nil {
		return err
	}
	if len(out) != usize {
		return io.ErrUnexpectedEOF
	}
	c.buf, c.data = buf, out
	return nil
}

// maxZstdWindow is the largest window the zstd format allows (3.75 TiB).
const maxZstdWindow = 1<<41 + 7<<38

func lz4Decode(c *loaded, src []byte, usize int) error {
	c.buf = grow(c.buf, usize)
	c.data = c.buf
	zr := lz4.NewReader(bytes.NewReader(src))
	if _, err := io.ReadFull(zr, c.data); err != nil {
		return err
	}
	var one [1]byte
	if n, _ := zr.Read(one[:]); n != 0 {
		return io.ErrShortBuffer
	}
	return nil
}

// index lists the messages of c's records (one message when loose).
func (ld *loader) index(c *loaded, off int64, data []byte, loose bool) error {
	if loose {
		c.data = data
		return c.addMessage(data, 0, len(data), off)
	}
	pos := 0
	for pos < len(data) {
		h := cursor{b: data[pos:]}
		op, n := h.u8(), h.u64()
		if h.err || n > uint64(len(data)-pos-recordPrefix) {
			return corrupt(off, "record at %d inside the chunk cut short", pos)
		}
		lo, hi := pos+recordPrefix, pos+recordPrefix+int(n)
		switch op {
		case opMessage:
			if err := c.addMessage(data, lo, hi, off); err != nil {
				return err
			}
		case opSchema, opChannel:
			c.defs = append(c.defs, defRecord{op: op, body: data[lo:hi], off: off})
		}
		pos = hi
	}
	slices.SortStableFunc(c.entries, func(a, b entry) int { return cmpU64(a.t, b.t) })
	return nil
}

func (c *loaded) addMessage(data []byte, lo, hi int, off int64) error {
	h := cursor{b: data[lo:hi]}
	e := entry{channel: h.u16(), seq: h.u32(), t: h.u64(), pub: h.u64()}
	if h.err {
		return corrupt(off, "message record shorter than its fields")
	}
	e.lo, e.hi = hi-len(h.b), hi
	c.entries = append(c.entries, e)
	return nil
}
