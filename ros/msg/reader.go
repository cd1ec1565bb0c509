package msg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrShort is wrapped by decode errors: the message ended early or a
// length in it is larger than the bytes that remain.
var ErrShort = errors.New("message too short")

// ErrTrailing is wrapped when bytes remain after the last field.
var ErrTrailing = errors.New("trailing bytes after the message")

// ErrBudget is wrapped when decoding a message dynamically would take
// more memory than DecodeBudget allows for its size.
var ErrBudget = errors.New("message decodes to more memory than its size allows")

// dec reads little-endian ROS serialization from b. The first failure is
// sticky in err; later reads return zero values, so decoders check once.
// budget, when limited, is the memory the dynamic decoder may still
// materialize (see DecodeBudget).
type dec struct {
	b       []byte
	off     int
	err     error
	budget  int
	limited bool
}

// charge takes n bytes of memory from the budget before they are
// allocated; false (and ErrBudget) when they do not fit.
func (d *dec) charge(n int, what string) bool {
	if d.err != nil {
		return false
	}
	if d.limited && n > d.budget {
		d.err = fmt.Errorf("%w: %s needs %d more bytes at offset %d, %d of the budget left", ErrBudget, what, n, d.off, d.budget)
		return false
	}
	d.budget -= n
	return true
}

func (d *dec) fail(what string, need int) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s needs %d bytes at offset %d, %d remain", ErrShort, what, need, d.off, len(d.b)-d.off)
	}
}

func (d *dec) remaining() int { return len(d.b) - d.off }

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

func (d *dec) u8() uint8 {
	if p := d.take(1, "uint8"); p != nil {
		return p[0]
	}
	return 0
}

func (d *dec) u16() uint16 {
	if p := d.take(2, "uint16"); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *dec) u32() uint32 {
	if p := d.take(4, "uint32"); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *dec) u64() uint64 {
	if p := d.take(8, "uint64"); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *dec) time() Time { return Time{Sec: d.u32(), NSec: d.u32()} }

// count reads an array length and checks that n elements of at least
// elemSize bytes each (at least 1) fit in what remains, before anyone
// allocates for them.
func (d *dec) count(elemSize int, what string) int {
	n := d.u32()
	if d.err != nil {
		return 0
	}
	if elemSize < 1 {
		elemSize = 1
	}
	if uint64(n)*uint64(elemSize) > uint64(d.remaining()) {
		d.fail(what, int(min(uint64(n)*uint64(elemSize), math.MaxInt32)))
		return 0
	}
	return int(n)
}

// bytes reads a length-prefixed byte sequence, aliasing b.
func (d *dec) bytes(what string) []byte {
	n := d.u32()
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(d.remaining()) {
		d.fail(what, int(min(uint64(n), math.MaxInt32)))
		return nil
	}
	return d.take(int(n), what)
}

// str reads a ROS string. When its bytes equal prev, prev is returned and
// nothing is allocated: a stream of messages repeats its frame ids and
// encodings.
func (d *dec) str(prev string) string {
	p := d.bytes("string")
	if string(p) == prev {
		return prev
	}
	return string(p)
}

// strs reads a string array; a string equal to prev[i] reuses it.
func (d *dec) strs(prev []string) []string {
	n := d.count(4, "string[]")
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		var p string
		if i < len(prev) {
			p = prev[i]
		}
		out[i] = d.str(p)
	}
	if d.err != nil {
		return nil
	}
	return out
}

// f64s reads a float64 array into a new slice.
func (d *dec) f64s() []float64 {
	n := d.count(8, "float64[]")
	if n == 0 {
		return nil
	}
	p := d.take(8*n, "float64[]")
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return out
}

// end reports the sticky error, or ErrTrailing if bytes remain.
func (d *dec) end(typeName string) error {
	if d.err != nil {
		return fmt.Errorf("decode %s: %w", typeName, d.err)
	}
	if r := d.remaining(); r != 0 {
		return fmt.Errorf("decode %s: %w (%d bytes)", typeName, ErrTrailing, r)
	}
	return nil
}
