package tcpros

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// DefaultMaxFrameBytes caps one frame when a FrameReader is given 0:
// large enough for a 4K rgb8 image (24.9 MB) with room to spare.
const DefaultMaxFrameBytes = 64 << 20

// readBufferSize is the bufio size under a FrameReader: small messages
// (joint states at 1 kHz) are read many per syscall, large ones go
// straight into their frame buffer.
const readBufferSize = 64 << 10

// FrameReader reads length-prefixed message frames into pooled buffers.
type FrameReader struct {
	r      *bufio.Reader
	max    int
	pool   *Pool
	lenBuf [4]byte
}

// NewFrameReader reads frames from r of at most maxBytes (0:
// DefaultMaxFrameBytes), with buffers from pool (nil: a new Pool).
func NewFrameReader(r io.Reader, maxBytes int, pool *Pool) *FrameReader {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFrameBytes
	}
	if maxBytes > 1<<31 { // the Pool's largest size class
		maxBytes = 1 << 31
	}
	if pool == nil {
		pool = NewPool()
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < readBufferSize {
		br = bufio.NewReaderSize(r, readBufferSize)
	}
	return &FrameReader{r: br, max: maxBytes, pool: pool}
}

// Next reads one frame. The caller owns the returned buffer until it
// passes it to Pool.Put. A length over the cap returns an error wrapping
// ErrTooLarge without reading or allocating the body; the connection is
// then out of sync and must be closed.
func (f *FrameReader) Next() (*Buffer, error) {
	if _, err := io.ReadFull(f.r, f.lenBuf[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(f.lenBuf[:])
	if uint64(n) > uint64(f.max) {
		return nil, fmt.Errorf("%w: frame of %d bytes, cap %d", ErrTooLarge, n, f.max)
	}
	b := f.pool.Get(int(n))
	if _, err := io.ReadFull(f.r, b.B); err != nil {
		f.pool.Put(b)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("tcpros: frame of %d bytes cut short: %w", n, err)
	}
	return b, nil
}
