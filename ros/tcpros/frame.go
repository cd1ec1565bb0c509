package tcpros

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrameBytes caps one frame when a FrameReader is given 0:
// large enough for a 4K rgb8 image (24.9 MB) with room to spare.
const DefaultMaxFrameBytes = 64 << 20

// readBufferSize is the bufio size under a FrameReader: small messages
// (joint states at 1 kHz) are read many per syscall (a 700-byte
// JointState, 23 a read), large ones go straight into their frame
// buffer but for what the read-ahead took with their length, which is
// copied twice. At 64 KiB that was more than half of a 113 KB JPEG
// frame: BenchmarkFrameReaderJPEG720p 3.0 -> 1.7 us a frame at 16 KiB,
// the JointState and raw image benchmarks unchanged.
const readBufferSize = 16 << 10

// GrowStep is the first buffer a frame body larger than it gets, unless
// the connection's last frame was as large: the body is read in bounded
// steps (each buffer at most 4x the last, taken from the pool), so a
// peer that announces a large frame and then stalls pins at most 4x what
// it actually sent in it, or the size of the last frame it sent whole,
// never the announced length. A steady stream (a camera's frames all one
// size) so reads every frame after its first straight into one buffer:
// each step beyond the first copies what was read so far (a 720p rgb8
// frame read in steps cost a third more memory traffic, issue 25).
const GrowStep = 1 << 20

// ErrNoRoom is returned by ReadBody when the reserve function refused
// the memory the next step needs; the body was read and discarded, so
// the stream is still in sync and the caller may count a drop and go on.
var ErrNoRoom = errors.New("tcpros: no room for the frame")

// FrameReader reads length-prefixed message frames into pooled buffers.
type FrameReader struct {
	r    *bufio.Reader
	wake waker // r's source when it takes a wake-up hint, else nil
	max  int
	pool *Pool
	sent int // body bytes of the last frame the peer sent whole
}

// waker is a reader that can wait until n more bytes are there before it
// wakes (SocketReader's, through SO_RCVLOWAT).
type waker interface{ wakeAt(n int) }

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
	w, _ := r.(waker)
	return &FrameReader{r: br, wake: w, max: maxBytes, pool: pool}
}

// Next reads one frame (ReadLength then ReadBody without a reserve
// function). The caller owns the returned buffer until it passes it to
// Pool.Put. A length over the cap returns an error wrapping ErrTooLarge
// without reading or allocating the body; the connection is then out of
// sync and must be closed.
func (f *FrameReader) Next() (*Buffer, error) {
	n, err := f.ReadLength()
	if err != nil {
		return nil, err
	}
	return f.ReadBody(n, nil)
}

// ReadLength reads the next frame's length and checks it against the cap
// (an error wrapping ErrTooLarge when over it). A read error (a deadline)
// consumes nothing: after it the reader is still at the frame's start,
// so a caller may clear the deadline and call ReadLength again.
func (f *FrameReader) ReadLength() (int, error) {
	b, err := f.r.Peek(4)
	if err != nil {
		if err == io.EOF && len(b) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	n := binary.LittleEndian.Uint32(b)
	_, _ = f.r.Discard(4)
	if uint64(n) > uint64(f.max) {
		return 0, fmt.Errorf("%w: frame of %d bytes, cap %d", ErrTooLarge, n, f.max)
	}
	return int(n), nil
}

// Buffered is how many bytes are already read ahead: a body no longer
// than this needs no more reads from the connection.
func (f *FrameReader) Buffered() int { return f.r.Buffered() }

// ReadBody reads the n-byte body ReadLength announced. Bodies up to
// GrowStep, or up to the last frame read whole, get one buffer; larger
// ones are read in growing steps (see GrowStep). Before taking each
// buffer, reserve (nil: always yes) is asked for the bytes that step
// adds; when it says no the rest of the
// body is discarded and ErrNoRoom returned. The caller keeps track of
// what it reserved: on any error it must give all of it back.
func (f *FrameReader) ReadBody(n int, reserve func(bytes int) bool) (*Buffer, error) {
	size := min(n, max(GrowStep, f.sent))
	if reserve != nil && !reserve(size) {
		return nil, f.discard(n)
	}
	if f.wake != nil { // one wake-up for the body, not one per segment
		f.wake.wakeAt(n - f.r.Buffered())
		defer f.wake.wakeAt(0)
	}
	b := f.pool.Get(size)
	got := 0
	for {
		m, err := io.ReadFull(f.r, b.B[got:])
		got += m
		if err != nil {
			f.pool.Put(b)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("tcpros: frame of %d bytes cut short after %d: %w", n, got, err)
		}
		if got == n {
			f.sent = n
			return b, nil
		}
		next := min(n, 4*len(b.B))
		if reserve != nil && !reserve(next-len(b.B)) {
			f.pool.Put(b)
			return nil, f.discard(n - got)
		}
		nb := f.pool.Get(next)
		copy(nb.B, b.B[:got])
		f.pool.Put(b)
		b = nb
	}
}

// discard skips n body bytes without allocating and returns ErrNoRoom,
// or the read error that cut the body short.
func (f *FrameReader) discard(n int) error {
	if _, err := f.r.Discard(n); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("tcpros: skipping a frame of %d bytes: %w", n, err)
	}
	f.sent = 0 // only the rest of the body was skipped: not a size shown whole
	return ErrNoRoom
}
