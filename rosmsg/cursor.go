package rosmsg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Errors wrapped by decode errors, for both encodings.
var (
	// ErrShort: the message ended early, or a length in it is larger
	// than the bytes that remain.
	ErrShort = errors.New("message too short")
	// ErrTrailing: bytes remain after the last field (in XCDR1, more
	// than alignment padding).
	ErrTrailing = errors.New("trailing bytes after the message")
	// ErrBudget: decoding dynamically would take more memory than
	// DecodeBudget allows for the message's size.
	ErrBudget = errors.New("message decodes to more memory than its size allows")
	// ErrEncapsulation: the 4-byte XCDR1 encapsulation header is not
	// plain CDR (CDR_LE 00 01 or CDR_BE 00 00).
	ErrEncapsulation = errors.New("unsupported CDR encapsulation")
	// ErrBound: a ROS 2 sequence or string is longer than its bound.
	ErrBound = errors.New("longer than its bound")
)

// cdrHeader is the encapsulation header before an XCDR1 stream;
// cdrPadding the padding a writer may leave after the last field
// (serialized sizes are often rounded up to 4 bytes).
const (
	cdrHeader  = 4
	cdrPadding = 3
)

// Cursor reads one serialized message: ROS1 serialization (little-endian,
// packed) or XCDR1 (primitives aligned to their size relative to the
// byte after the encapsulation header, either byte order, strings ending
// in NUL). The first failure is sticky; later reads return zero values,
// so decoders check once (Err or End). A Cursor is not safe for
// concurrent use.
type Cursor struct {
	b       []byte
	off     int
	err     error
	budget  int  // memory the dynamic decoder may still materialize
	limited bool // budget applies
	cdr     bool
	be      bool
}

// NewROS1 returns a Cursor over a ROS1-serialized message.
func NewROS1(b []byte) Cursor { return Cursor{b: b} }

// NewCDR returns a Cursor over an XCDR1 message, its encapsulation header
// checked and skipped.
func NewCDR(b []byte) Cursor {
	c := Cursor{b: b, off: cdrHeader, cdr: true}
	switch {
	case len(b) < cdrHeader:
		c.err = fmt.Errorf("%w: %d bytes, want at least the 4-byte encapsulation header", ErrShort, len(b))
	case b[0] != 0 || b[1] > 1:
		c.err = fmt.Errorf("%w: header %02x %02x (want 00 01 little-endian or 00 00 big-endian XCDR1)", ErrEncapsulation, b[0], b[1])
	default:
		c.be = b[1] == 0
	}
	return c
}

// MaxDecodeAmplification and minDecodeBudget make DecodeBudget.
const (
	MaxDecodeAmplification = 16
	minDecodeBudget        = 64 << 10
)

// DecodeBudget is the memory a dynamic decoder may materialize for a
// message of size bytes: 64 KiB plus 16x its size. Typical messages take
// 1-8x (a float64[] 1x, small structs of strings up to ~13x); what would
// take more (an array of millions of empty or one-byte messages, 40-56x)
// is refused with ErrBudget before the array is allocated.
func DecodeBudget(size int) int { return minDecodeBudget + MaxDecodeAmplification*size }

// Memory a decoded value takes on a 64-bit machine, charged against the
// decode budget before it is allocated.
const (
	ValueBytes = 32 // a decoded message struct: its definition and Fields slice header
	AnyBytes   = 16 // one Fields entry, or a string header
	SliceBytes = 24 // an array field's slice header, boxed in its entry
	PtrBytes   = 8  // one element of a slice of messages
	MaxMem     = 1 << 40
)

// LimitMemory makes Charge refuse more than DecodeBudget(len(b)).
func (c *Cursor) LimitMemory() { c.budget, c.limited = DecodeBudget(len(c.b)), true }

// Charge takes n bytes of memory from the budget before they are
// allocated; false (and ErrBudget) when they do not fit.
func (c *Cursor) Charge(n int, what string) bool {
	if c.err != nil {
		return false
	}
	if c.limited && n > c.budget {
		c.err = fmt.Errorf("%w: %s needs %d more bytes at offset %d, %d of the budget left", ErrBudget, what, n, c.off, c.budget)
		return false
	}
	c.budget -= n
	return true
}

// Affords reports whether n more bytes fit in the budget, without
// taking them (false only when the budget applies).
func (c *Cursor) Affords(n uint64) bool { return !c.limited || n <= uint64(max(c.budget, 0)) }

// Err is the first failure, or nil.
func (c *Cursor) Err() error { return c.err }

// Fail records that what needed need bytes that are not there.
func (c *Cursor) Fail(what string, need int) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s needs %d bytes at offset %d, %d remain", ErrShort, what, need, c.off, len(c.b)-c.off)
	}
}

// Failf records a failure that wraps err.
func (c *Cursor) Failf(err error, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s at offset %d", err, fmt.Sprintf(format, args...), c.off)
	}
}

// Remaining is the number of bytes not read yet.
func (c *Cursor) Remaining() int { return len(c.b) - c.off }

// Take returns the next n bytes (aliasing the message), or nil after a
// failure.
func (c *Cursor) Take(n int, what string) []byte {
	if c.err == nil && uint(n) <= uint(len(c.b)-c.off) {
		s := c.b[c.off : c.off+n : c.off+n]
		c.off += n
		return s
	}
	c.Fail(what, n)
	return nil
}

// align skips XCDR1's padding before a primitive of n bytes.
func (c *Cursor) align(n int) {
	if !c.cdr || n <= 1 || c.err != nil {
		return
	}
	if pad := (c.off - cdrHeader) % n; pad != 0 {
		c.Take(n-pad, "padding")
	}
}

// read reads the next primitive of n (2, 4 or 8) bytes, after XCDR1's
// padding, in the message's byte order; 0 after a failure. One call per
// read keeps U16, U32 and U64 inlinable.
func (c *Cursor) read(n int, what string) uint64 {
	if c.err != nil {
		return 0
	}
	off := c.off
	if c.cdr {
		if pad := (off - cdrHeader) % n; pad != 0 {
			off += n - pad
		}
	}
	if off+n > len(c.b) {
		if off > len(c.b) {
			c.Fail("padding", off-c.off)
		} else {
			c.off = off
			c.Fail(what, n)
		}
		return 0
	}
	p := c.b[off : off+n]
	c.off = off + n
	switch n {
	case 2:
		if c.be {
			return uint64(binary.BigEndian.Uint16(p))
		}
		return uint64(binary.LittleEndian.Uint16(p))
	case 4:
		if c.be {
			return uint64(binary.BigEndian.Uint32(p))
		}
		return uint64(binary.LittleEndian.Uint32(p))
	}
	if c.be {
		return binary.BigEndian.Uint64(p)
	}
	return binary.LittleEndian.Uint64(p)
}

// U8 reads one byte.
func (c *Cursor) U8() uint8 {
	if p := c.Take(1, "uint8"); p != nil {
		return p[0]
	}
	return 0
}

// U16 reads a uint16.
func (c *Cursor) U16() uint16 { return uint16(c.read(2, "uint16")) }

// U32 reads a uint32. Lengths, counts and most fields are one, so it has
// its own fast path without read's size switch (which made the typed
// image decoder a fifth slower); read records a failure.
func (c *Cursor) U32() uint32 {
	off := c.off
	if c.cdr {
		off += -(off - cdrHeader) & 3
	}
	if c.err != nil || off+4 > len(c.b) {
		return uint32(c.read(4, "uint32")) // records the failure
	}
	v := binary.LittleEndian.Uint32(c.b[off:])
	c.off = off + 4
	if c.be {
		return bits.ReverseBytes32(v)
	}
	return v
}

// U64 reads a uint64.
func (c *Cursor) U64() uint64 { return c.read(8, "uint64") }

// F64 reads a float64.
func (c *Cursor) F64() float64 { return math.Float64frombits(c.U64()) }

// Count reads an array length and checks it against bound (when not 0)
// and that n elements of at least elemSize bytes (at least 1) fit in
// what remains, before anyone allocates for them.
func (c *Cursor) Count(elemSize, bound int, what string) int {
	n := c.U32()
	if c.err != nil {
		return 0
	}
	if bound > 0 && uint64(n) > uint64(bound) {
		c.Failf(ErrBound, "%s has %d elements, bound %d", what, n, bound)
		return 0
	}
	if need := uint64(n) * uint64(max(elemSize, 1)); need > uint64(c.Remaining()) {
		c.Fail(what, int(min(need, math.MaxInt32)))
		return 0
	}
	return int(n)
}

// CheckFixed checks that a fixed array of n elements of at least
// elemSize bytes (at least 1) fits in what remains.
func (c *Cursor) CheckFixed(n, elemSize int, what string) {
	if need := uint64(n) * uint64(max(elemSize, 1)); need > uint64(c.Remaining()) {
		c.Fail(what, int(min(need, math.MaxInt32)))
	}
}

// Bytes reads a length-prefixed byte sequence, aliasing the message.
func (c *Cursor) Bytes(what string) []byte { return c.Take(int(c.U32()), what) }

// StrBytes reads a string's bytes, aliasing the message: in XCDR1 the
// length counts a terminating NUL, which is dropped (a length of 0,
// which some writers use for "", is ""); a ROS1 string is its bytes.
// bound (ROS 2, when not 0) caps its length.
func (c *Cursor) StrBytes(bound int) []byte {
	p := c.Take(int(c.U32()), "string")
	if c.cdr && len(p) > 0 && p[len(p)-1] == 0 {
		p = p[:len(p)-1]
	}
	if bound > 0 && len(p) > bound {
		c.Failf(ErrBound, "string of %d bytes, bound %d", len(p), bound)
	}
	return p
}

// Str reads a string; when its bytes equal prev, prev is returned and
// nothing is allocated (a stream repeats its frame ids and encodings).
func (c *Cursor) Str(prev string) string {
	p := c.StrBytes(0)
	if string(p) == prev {
		return prev
	}
	return string(p)
}

// Strs reads a string array; a string equal to prev[i] reuses it.
func (c *Cursor) Strs(prev []string) []string {
	n := c.Count(4, 0, "string[]")
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		var p string
		if i < len(prev) {
			p = prev[i]
		}
		out[i] = c.Str(p)
	}
	if c.err != nil {
		return nil
	}
	return out
}

// F64s reads a float64 array into a new slice.
func (c *Cursor) F64s() []float64 {
	n := c.Count(8, 0, "float64[]")
	if n == 0 {
		return nil
	}
	if c.cdr {
		c.align(8)
	}
	p := c.Take(8*n, "float64[]")
	if p == nil {
		return nil
	}
	out := make([]float64, n)
	if c.be {
		for i := range out {
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(p[8*i:]))
		}
		return out
	}
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return out
}

// End reports the sticky error, or ErrTrailing if bytes remain (in
// XCDR1, more than the padding a writer may leave).
func (c *Cursor) End(typeName string) error {
	if c.err != nil {
		return fmt.Errorf("decode %s: %w", typeName, c.err)
	}
	r := c.Remaining()
	if c.cdr && r <= cdrPadding {
		r = 0
	}
	if r != 0 {
		return fmt.Errorf("decode %s: %w (%d bytes)", typeName, ErrTrailing, r)
	}
	return nil
}
