package bag

import (
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// compression of a chunk's data.
type compression uint8

const (
	compNone compression = iota
	compBZ2
	compLZ4
)

func (c compression) String() string {
	switch c {
	case compNone:
		return "none"
	case compBZ2:
		return "bz2"
	case compLZ4:
		return "lz4"
	}
	return "unknown"
}

func parseCompression(b []byte) (compression, error) {
	switch string(b) {
	case "none":
		return compNone, nil
	case "bz2":
		return compBZ2, nil
	case "lz4":
		return compLZ4, nil
	}
	return 0, fmt.Errorf("chunk compression %q: %w (none, bz2 and lz4 are read)", b, ErrUnsupported)
}

// chunkRef locates one chunk's data in the file.
type chunkRef struct {
	pos     int64  // the chunk record
	dataPos int64  // its (compressed) data
	dataLen int64  // data bytes in the file (fewer than written when cut)
	size    uint32 // uncompressed bytes to use
	comp    compression
	// partial: the chunk is damaged or cut short; size is what the scan
	// could decode, and decoding stops there without an error.
	partial bool
	// virtual: a message record outside any chunk, read as if it were
	// an uncompressed chunk holding just that record.
	virtual bool
}

// decoder holds the reusable state for decompressing chunks.
type decoder struct {
	zbuf []byte
	src  bytes.Reader
	lz   *lz4.Reader
}

// grow returns b resized to n, reallocated with headroom when too small:
// rosbag's chunks differ in size by their last message, and a buffer a
// little larger than the first chunk fits most of the others.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}

// decodeChunk reads c's uncompressed data into dst (grown as needed) and
// returns it with the number of bytes decoded; on a decoding error, n is
// how far it got. An uncompressed chunk is read straight into dst.
func (r *Reader) decodeChunk(c *chunkRef, dst []byte, d *decoder) ([]byte, int, error) {
	if c.comp == compNone {
		n := min(c.dataLen, int64(c.size))
		dst = grow(dst, int(n))
		if _, err := r.ra.ReadAt(dst, c.dataPos); err != nil {
			return dst, 0, fmt.Errorf("read chunk: %w", err)
		}
		if !c.partial && c.dataLen != int64(c.size) {
			return dst, int(n), fmt.Errorf("uncompressed chunk holds %d bytes, its header says %d", c.dataLen, c.size)
		}
		return dst, int(n), nil
	}
	d.zbuf = grow(d.zbuf, int(c.dataLen))
	if _, err := r.ra.ReadAt(d.zbuf, c.dataPos); err != nil {
		return dst, 0, fmt.Errorf("read chunk: %w", err)
	}
	d.src.Reset(d.zbuf)
	var zr io.Reader
	if c.comp == compBZ2 {
		zr = bzip2.NewReader(&d.src)
	} else {
		if d.lz == nil {
			d.lz = lz4.NewReader(&d.src)
		} else {
			d.lz.Reset(&d.src)
		}
		zr = d.lz
	}
	dst = grow(dst, int(c.size))
	n, err := io.ReadFull(zr, dst)
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = fmt.Errorf("%s data ends after %d of %d bytes", c.comp, n, c.size)
		} else {
			err = fmt.Errorf("%s: %w", c.comp, err)
		}
		return dst, n, err
	}
	return dst, n, nil
}

// loadChunk is decodeChunk for the iterator: a partial chunk yields the
// bytes the scan found, any other failure is a CorruptError.
func (r *Reader) loadChunk(c *chunkRef, dst []byte, d *decoder) ([]byte, error) {
	buf, n, err := r.decodeChunk(c, dst, d)
	if c.partial && n >= int(c.size) {
		return buf[:c.size], nil
	}
	if err != nil {
		return buf, r.corrupt(c.pos, "chunk: %w", err)
	}
	return buf[:n], nil
}
