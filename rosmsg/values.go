package rosmsg

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// Scalar reads one number, bool, ROS1 time or duration of kind k as the
// Go value a dynamic decoder stores, charging its box (8 bytes for kinds
// wider than one byte) first.
func (c *Cursor) Scalar(k Kind, what string) any {
	if k.Size() > 1 && !c.Charge(8, what) { // boxed in its Fields entry
		return nil
	}
	switch k {
	case KindBool:
		return c.U8() != 0
	case KindInt8:
		return int8(c.U8())
	case KindByte, KindUint8:
		return c.U8()
	case KindInt16:
		return int16(c.U16())
	case KindUint16:
		return c.U16()
	case KindInt32:
		return int32(c.U32())
	case KindUint32:
		return c.U32()
	case KindInt64:
		return int64(c.U64())
	case KindUint64:
		return c.U64()
	case KindFloat32:
		return math.Float32frombits(c.U32())
	case KindFloat64:
		return c.F64()
	case KindTime:
		return c.Time()
	case KindDuration:
		return c.Duration()
	}
	c.Failf(ErrShort, "field of invalid kind %d", k)
	return nil
}

// String reads a string field of at most bound bytes (0: any), charging
// its header (when header) and bytes before copying them.
func (c *Cursor) String(bound int, header bool, what string) string {
	p := c.StrBytes(bound)
	charge := len(p)
	if header {
		charge += AnyBytes
	}
	if !c.Charge(charge, what) {
		return ""
	}
	return string(p)
}

// WString reads a ROS 2 wide string as its typesupport writes it: a
// uint32 count of UTF-16 code units, then the units (no terminator).
func (c *Cursor) WString(bound int, what string) string {
	n := c.Count(2, bound, what)
	if !c.Charge(AnyBytes+3*n, what) {
		return ""
	}
	units := make([]uint16, n)
	for i := range units {
		units[i] = c.U16()
	}
	return string(utf16.Decode(units))
}

// Numbers reads n elements of a primitive kind (or ROS1 time/duration)
// into a new slice of their Go type; the caller checked n against the
// remaining bytes and charged the slice.
func (c *Cursor) Numbers(k Kind, n int, what string) any {
	switch k {
	case KindTime:
		return Fill(n, c.Time)
	case KindDuration:
		return Fill(n, c.Duration)
	}
	sz := k.Size()
	if n > 0 {
		c.align(sz)
	}
	p := c.Take(n*sz, what)
	if p == nil && n > 0 {
		return nil
	}
	if c.be && sz > 1 {
		p = swapped(p, sz)
	}
	v := littleEndian(k, p, n)
	if v == nil {
		c.Failf(ErrShort, "%s: array of kind %v", what, k)
	}
	return v
}

// swapped returns a copy of p with every sz-byte element's bytes
// reversed: big-endian elements made little-endian.
func swapped(p []byte, sz int) []byte {
	out := make([]byte, len(p))
	for i := 0; i < len(p); i += sz {
		for j := 0; j < sz; j++ {
			out[i+j] = p[i+sz-1-j]
		}
	}
	return out
}

func littleEndian(k Kind, p []byte, n int) any {
	le := binary.LittleEndian
	switch k {
	case KindByte, KindUint8:
		return append([]byte(nil), p...)
	case KindInt8:
		return conv(n, func(i int) int8 { return int8(p[i]) })
	case KindBool:
		return conv(n, func(i int) bool { return p[i] != 0 })
	case KindInt16:
		return conv(n, func(i int) int16 { return int16(le.Uint16(p[2*i:])) })
	case KindUint16:
		return conv(n, func(i int) uint16 { return le.Uint16(p[2*i:]) })
	case KindInt32:
		return conv(n, func(i int) int32 { return int32(le.Uint32(p[4*i:])) })
	case KindUint32:
		return conv(n, func(i int) uint32 { return le.Uint32(p[4*i:]) })
	case KindFloat32:
		return conv(n, func(i int) float32 { return math.Float32frombits(le.Uint32(p[4*i:])) })
	case KindInt64:
		return conv(n, func(i int) int64 { return int64(le.Uint64(p[8*i:])) })
	case KindUint64:
		return conv(n, func(i int) uint64 { return le.Uint64(p[8*i:]) })
	case KindFloat64:
		return conv(n, func(i int) float64 { return math.Float64frombits(le.Uint64(p[8*i:])) })
	}
	return nil // not a primitive: the caller's defect, reported by Numbers
}

// Fill returns n values read one after another by next.
func Fill[T any](n int, next func() T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

func conv[T any](n int, at func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = at(i)
	}
	return out
}
