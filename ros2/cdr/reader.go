package cdr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Errors wrapped by decode errors.
var (
	// ErrShort: the message ended early, or a length in it is larger
	// than the bytes that remain.
	ErrShort = errors.New("message too short")
	// ErrTrailing: more than alignment padding remains after the last field.
	ErrTrailing = errors.New("trailing bytes after the message")
	// ErrEncapsulation: the 4-byte encapsulation header is not plain
	// XCDR1 (CDR_LE 00 01 or CDR_BE 00 00).
	ErrEncapsulation = errors.New("unsupported CDR encapsulation")
	// ErrBound: a sequence or string is longer than its declared bound.
	ErrBound = errors.New("longer than its bound")
	// ErrBudget: decoding dynamically would take more memory than
	// DecodeBudget allows for the message's size.
	ErrBudget = errors.New("message decodes to more memory than its size allows")
)

// headerSize is the encapsulation header before the CDR stream.
const headerSize = 4

// maxPadding is the padding a writer may leave after the last field
// (serialized sizes are often rounded up to 4 bytes).
const maxPadding = 3

// dec reads an XCDR1 stream. Alignment is relative to the first byte
// after the encapsulation header. The first failure is sticky in err;
// later reads return zero values, so decoders check once.
type dec struct {
	b       []byte
	off     int
	be      bool
	err     error
	budget  int
	limited bool
}

// start checks the encapsulation header and positions d after it.
func (d *dec) start(b []byte) {
	*d = dec{b: b, off: headerSize}
	switch {
	case len(b) < headerSize:
		d.err = fmt.Errorf("%w: %d bytes, want at least the 4-byte encapsulation header", ErrShort, len(b))
	case b[0] != 0 || b[1] > 1:
		d.err = fmt.Errorf("%w: header %02x %02x (want 00 01 little-endian or 00 00 big-endian XCDR1)", ErrEncapsulation, b[0], b[1])
	default:
		d.be = b[1] == 0
	}
}

func (d *dec) fail(what string, need int) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s needs %d bytes at offset %d, %d remain", ErrShort, what, need, d.off, len(d.b)-d.off)
	}
}

func (d *dec) remaining() int { return len(d.b) - d.off }

// align skips the padding before a primitive of n bytes.
func (d *dec) align(n int) {
	if n <= 1 || d.err != nil {
		return
	}
	if pad := (d.off - headerSize) % n; pad != 0 {
		d.take(n-pad, "padding")
	}
}

// take returns the next n bytes (aliasing b), or nil after a failure.
func (d *dec) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail(what, n)
		return nil
	}
	s := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return s
}

func (d *dec) order() binary.ByteOrder {
	if d.be {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (d *dec) u8() uint8 {
	if p := d.take(1, "uint8"); p != nil {
		return p[0]
	}
	return 0
}

func (d *dec) u16() uint16 {
	d.align(2)
	if p := d.take(2, "uint16"); p != nil {
		return d.order().Uint16(p)
	}
	return 0
}

func (d *dec) u32() uint32 {
	d.align(4)
	if p := d.take(4, "uint32"); p != nil {
		return d.order().Uint32(p)
	}
	return 0
}

func (d *dec) u64() uint64 {
	d.align(8)
	if p := d.take(8, "uint64"); p != nil {
		return d.order().Uint64(p)
	}
	return 0
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

// count reads a sequence length and checks that n elements of at least
// elemSize bytes (at least 1) fit in what remains, and the bound (when
// not 0), before anyone allocates for them.
func (d *dec) count(elemSize, bound int, what string) int {
	n := d.u32()
	if d.err != nil {
		return 0
	}
	if bound > 0 && uint64(n) > uint64(bound) {
		d.err = fmt.Errorf("%w: %s has %d elements, bound %d, at offset %d", ErrBound, what, n, bound, d.off)
		return 0
	}
	if uint64(n)*uint64(max(elemSize, 1)) > uint64(d.remaining()) {
		d.fail(what, int(min(uint64(n)*uint64(max(elemSize, 1)), math.MaxInt32)))
		return 0
	}
	return int(n)
}

// octets reads a uint8 sequence, aliasing b.
func (d *dec) octets(what string) []byte {
	n := d.count(1, 0, what)
	return d.take(n, what)
}

// strBytes reads a CDR string: a uint32 length that counts the
// terminating NUL, then the bytes and the NUL. The result (without the
// NUL) aliases b. A length of 0, which some writers use for "", is "".
func (d *dec) strBytes(bound int) []byte {
	n := d.count(1, 0, "string")
	p := d.take(n, "string")
	if len(p) > 0 && p[len(p)-1] == 0 {
		p = p[:len(p)-1]
	}
	if bound > 0 && len(p) > bound && d.err == nil {
		d.err = fmt.Errorf("%w: string of %d bytes, bound %d, at offset %d", ErrBound, len(p), bound, d.off)
	}
	return p
}

// str reads a string; when its bytes equal prev, prev is returned and
// nothing is allocated (frame ids and encodings repeat in a stream).
func (d *dec) str(prev string) string {
	p := d.strBytes(0)
	if string(p) == prev {
		return prev
	}
	return string(p)
}

// end reports the sticky error, or ErrTrailing if more than padding remains.
func (d *dec) end(typeName string) error {
	if d.err != nil {
		return fmt.Errorf("decode %s: %w", typeName, d.err)
	}
	if r := d.remaining(); r > maxPadding {
		return fmt.Errorf("decode %s: %w (%d bytes)", typeName, ErrTrailing, r)
	}
	return nil
}
