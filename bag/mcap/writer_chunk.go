package mcap

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// chunkBuilder is the one chunk a Writer holds: its uncompressed
// records, their time range and, per channel, the log time and offset
// of each message for the Message Index records. Its buffers are reused
// from chunk to chunk.
type chunkBuilder struct {
	buf        []byte
	start, end uint64
	messages   int
	index      map[uint16][]indexEntry
	packed     []byte // the compressed records
	scratch    []byte // record headers and message indexes
}

type indexEntry struct{ logTime, offset uint64 }

func (c *chunkBuilder) add(channelID uint16, sequence uint32, logTime, publishTime uint64, data []byte) {
	if c.messages == 0 {
		c.start, c.end = logTime, logTime
	}
	c.start, c.end = min(c.start, logTime), max(c.end, logTime)
	c.messages++
	if c.index == nil {
		c.index = map[uint16][]indexEntry{}
	}
	c.index[channelID] = append(c.index[channelID], indexEntry{logTime, uint64(len(c.buf))})
	b, at := beginRecord(c.buf, opMessage)
	b = putU64(putU64(putU32(putU16(b, channelID), sequence), logTime), publishTime)
	c.buf = endRecord(append(b, data...), at)
}

// channelIDs lists the channels with messages in the chunk, in order.
func (c *chunkBuilder) channelIDs() []uint16 {
	ids := make([]uint16, 0, len(c.index))
	for id, e := range c.index {
		if len(e) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (c *chunkBuilder) reset() {
	c.buf, c.messages = c.buf[:0], 0
	for id, e := range c.index {
		c.index[id] = e[:0]
	}
}

// flushChunk writes the chunk, then its Message Index records (one per
// channel, entries in log-time order), and keeps its Chunk Index for
// the summary.
func (w *Writer) flushChunk() error {
	c := &w.chunk
	if c.messages == 0 {
		return nil
	}
	packed, err := w.comp.compress(c.packed[:0], c.buf)
	if err != nil {
		return w.fail(fmt.Errorf("compressing a chunk (%s): %w", w.opts.Compression, err))
	}
	if w.comp.name != "" {
		c.packed = packed // else packed is c.buf
	}
	chunkStart := w.out.n
	h, at := beginRecord(c.scratch[:0], opChunk)
	h = putU64(putU64(putU64(h, c.start), c.end), uint64(len(c.buf)))
	h = putU64(putStr(putU32(h, crc32.ChecksumIEEE(c.buf)), w.comp.name), uint64(len(packed)))
	binary.LittleEndian.PutUint64(h[at+1:], uint64(len(h)-recordPrefix+len(packed))) // the content runs on into packed
	c.scratch = h
	if err := w.out.write(h); err != nil {
		return w.fail(err)
	}
	if err := w.out.write(packed); err != nil {
		return w.fail(err)
	}
	chunkLength := w.out.n - chunkStart
	ids, indexStart := c.channelIDs(), w.out.n
	offsets := make([]uint64, len(ids))
	for i, id := range ids {
		offsets[i] = uint64(w.out.n)
		if err := w.out.write(c.messageIndex(id)); err != nil {
			return w.fail(err)
		}
	}
	w.addChunkIndex(uint64(chunkStart), uint64(chunkLength), ids, offsets, uint64(w.out.n-indexStart), uint64(len(packed)))
	w.stats.chunks++
	c.reset()
	return nil
}

// messageIndex encodes channel id's Message Index record into scratch;
// ties in log time keep the order the messages were written in.
func (c *chunkBuilder) messageIndex(id uint16) []byte {
	e := c.index[id]
	slices.SortStableFunc(e, func(a, b indexEntry) int { return cmpU64(a.logTime, b.logTime) })
	b, at := beginRecord(c.scratch[:0], opMessageIndex)
	b = putU32(putU16(b, id), uint32(16*len(e)))
	for _, x := range e {
		b = putU64(putU64(b, x.logTime), x.offset)
	}
	c.scratch = endRecord(b, at)
	return c.scratch
}

// addChunkIndex appends the chunk's Chunk Index record: where it is,
// and where each channel's Message Index (ids[i] at offsets[i]) is.
func (w *Writer) addChunkIndex(start, length uint64, ids []uint16, offsets []uint64, indexLength, packed uint64) {
	c := &w.chunk
	b, at := beginRecord(w.chunkIndexes, opChunkIndex)
	b = putU64(putU64(putU64(putU64(b, c.start), c.end), start), length)
	b = putU32(b, uint32(len(ids)*(2+8)))
	for i, id := range ids {
		b = putU64(putU16(b, id), offsets[i])
	}
	b = putU64(putU64(putStr(putU64(b, indexLength), w.comp.name), packed), uint64(len(c.buf)))
	w.chunkIndexes = endRecord(b, at)
}

// compressor compresses chunks with one reused encoder; the same input
// gives the same bytes.
type compressor struct {
	name string // as the file names it: "", "zstd" or "lz4"
	zw   *zstd.Encoder
	lw   *lz4.Writer
}

func newCompressor(name string, chunkSize int64) (compressor, error) {
	switch name {
	case CompressionNone:
		return compressor{}, nil
	case CompressionZstd:
		// a window no larger than a chunk: EncodeAll compresses one
		// chunk at a time, and a larger window only costs memory
		window := max(zstd.MinWindowSize, 1<<bits.Len64(uint64(chunkSize-1)))
		zw, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(window))
		if err != nil {
			return compressor{}, fmt.Errorf("mcap: zstd encoder: %w", err)
		}
		return compressor{name: name, zw: zw}, nil
	case CompressionLZ4:
		lw := lz4.NewWriter(nil)
		if err := lw.Apply(lz4.BlockSizeOption(lz4BlockSize(chunkSize))); err != nil {
			return compressor{}, fmt.Errorf("mcap: lz4 encoder: %w", err)
		}
		return compressor{name: name, lw: lw}, nil
	}
	return compressor{}, fmt.Errorf("mcap: WriterOptions.Compression %q: want %q, %q or %q", name, CompressionZstd, CompressionLZ4, CompressionNone)
}

// lz4BlockSize is the smallest lz4 frame block that holds a chunk (the
// writer's buffers are the block's size), at most the largest, 4 MiB.
func lz4BlockSize(chunkSize int64) lz4.BlockSize {
	for _, b := range []lz4.BlockSize{lz4.Block64Kb, lz4.Block256Kb, lz4.Block1Mb} {
		if chunkSize <= int64(b) {
			return b
		}
	}
	return lz4.Block4Mb
}

// compress returns src compressed into dst's storage (src itself when
// the chunk is stored uncompressed).
func (c *compressor) compress(dst, src []byte) ([]byte, error) {
	switch {
	case c.zw != nil:
		return c.zw.EncodeAll(src, dst[:0]), nil
	case c.lw != nil:
		out := appender{b: dst[:0]}
		c.lw.Reset(&out)
		if _, err := c.lw.Write(src); err != nil {
			return nil, err
		}
		if err := c.lw.Close(); err != nil {
			return nil, err
		}
		return out.b, nil
	}
	return src, nil
}

func (c *compressor) close() {
	if c.zw != nil {
		c.zw.Close()
		c.zw = nil
	}
}

// appender is an io.Writer that appends to b.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
