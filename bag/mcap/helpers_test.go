package mcap

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// writer builds MCAP files for tests, from the specification.
type writer struct {
	buf     bytes.Buffer
	indexes [][]byte // chunk index records
}

type rec []byte

func (r rec) u16(v uint16) rec { return binary.LittleEndian.AppendUint16(r, v) }
func (r rec) u32(v uint32) rec { return binary.LittleEndian.AppendUint32(r, v) }
func (r rec) u64(v uint64) rec { return binary.LittleEndian.AppendUint64(r, v) }
func (r rec) str(s string) rec { return append(r.u32(uint32(len(s))), s...) }

func record(op byte, body rec) []byte {
	return append(rec{op}.u64(uint64(len(body))), body...)
}

func newWriter() *writer {
	w := &writer{}
	w.buf.Write(Magic)
	w.buf.Write(record(opHeader, rec{}.str("ros2").str("edged test")))
	return w
}

func schemaRec(id uint16, name, text string) []byte {
	return record(opSchema, rec{}.u16(id).str(name).str("ros2msg").str(text))
}

func channelRec(id, schema uint16, topic string) []byte {
	return record(opChannel, rec{}.u16(id).u16(schema).str(topic).str("cdr").u32(0))
}

func messageRec(ch uint16, t uint64, data string) []byte {
	return record(opMessage, append(rec{}.u16(ch).u32(0).u64(t).u64(t), data...))
}

// chunk writes one chunk of records with the given compression and
// indexes it; times are the first and last message's.
func (w *writer) chunk(comp string, start, end uint64, records ...[]byte) {
	raw := bytes.Join(records, nil)
	data := raw
	switch comp {
	case "zstd":
		e, _ := zstd.NewWriter(nil)
		data = e.EncodeAll(raw, nil)
	case "zstd-stream":
		comp, data = "zstd", streamZstd(raw, 8<<20)
	case "lz4":
		var b bytes.Buffer
		zw := lz4.NewWriter(&b)
		zw.Write(raw)
		zw.Close()
		data = b.Bytes()
	}
	off := w.buf.Len()
	body := rec{}.u64(start).u64(end).u64(uint64(len(raw))).u32(crc32.ChecksumIEEE(raw)).str(comp)
	body = append(body.u64(uint64(len(data))), data...)
	w.buf.Write(record(opChunk, body))
	ln := w.buf.Len() - off
	w.indexes = append(w.indexes, record(opChunkIndex, rec{}.u64(start).u64(end).u64(uint64(off)).u64(uint64(ln)).
		u32(0).u64(0).str(comp).u64(uint64(len(data))).u64(uint64(len(raw)))))
}

// streamZstd compresses b as a streaming compressor does (zstd -c on a
// pipe, libzstd's streaming API): one frame with no content size and
// the given window.
func streamZstd(b []byte, window int) []byte {
	var out bytes.Buffer
	e, _ := zstd.NewWriter(&out, zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1))
	e.Write(b)
	e.Flush() // the frame header goes out before the size is known
	e.Close()
	return out.Bytes()
}

// finish writes DataEnd, a summary (schemas and channels given, the
// chunk indexes) and the footer with its CRC; summary false: none.
func (w *writer) finish(summary bool, defs ...[]byte) []byte {
	w.buf.Write(record(opDataEnd, rec{}.u32(0)))
	start := 0
	if summary {
		start = w.buf.Len()
		for _, d := range defs {
			w.buf.Write(d)
		}
		for _, i := range w.indexes {
			w.buf.Write(i)
		}
	}
	foot := rec{opFooter}.u64(20).u64(uint64(start)).u64(0)
	crc := uint32(0)
	if summary {
		crc = crc32.ChecksumIEEE(append(append([]byte(nil), w.buf.Bytes()[start:]...), foot...))
	}
	w.buf.Write(foot.u32(crc))
	w.buf.Write(Magic)
	return w.buf.Bytes()
}

// sample is a file of two overlapping chunks (zstd, lz4), a loose-free
// layout rosbag2 writes, with schemas and channels in the first chunk.
func sample(summary bool) []byte {
	w := newWriter()
	s, c := schemaRec(1, "std_msgs/msg/String", "string data"), channelRec(1, 1, "/a")
	w.chunk("zstd", 10, 30, s, c, messageRec(1, 10, "a10"), messageRec(1, 30, "a30"))
	w.chunk("lz4", 20, 40, messageRec(1, 20, "a20"), messageRec(1, 40, "a40"))
	w.chunk("", 50, 50, messageRec(1, 50, "a50"))
	return w.finish(summary, s, c)
}

func realPath(tb testing.TB, name string) string { return sampledata.Path(tb, name) }
