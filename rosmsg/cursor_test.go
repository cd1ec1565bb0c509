package rosmsg

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// cdrMessage is an XCDR1 message in either byte order (alignment counts
// from after the 4-byte header): uint8 1, padding to 4, a uint32 count 2
// and two int16, a count 2 and two float64 (at 16, aligned), a count 2,
// padding to 40 and two uint64.
func cdrMessage(order binary.AppendByteOrder, header byte) []byte {
	b := []byte{0, header, 0, 0, 1, 0, 0, 0}
	b = order.AppendUint32(b, 2)
	b = order.AppendUint16(order.AppendUint16(b, 0xfffe), 7)
	b = order.AppendUint32(b, 2)
	b = order.AppendUint64(order.AppendUint64(b, math.Float64bits(1.5)), math.Float64bits(-2))
	b = order.AppendUint32(b, 2)
	b = append(b, 0, 0, 0, 0)
	return order.AppendUint64(order.AppendUint64(b, 1<<40), 3)
}

// TestCursorByteOrder: a big-endian XCDR1 message reads as the same
// message in little-endian, scalars and arrays alike (Numbers swaps an
// array's bytes once, then reads it as little-endian).
func TestCursorByteOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		order  binary.AppendByteOrder
		header byte
	}{
		{"little-endian", binary.LittleEndian, 1},
		{"big-endian", binary.BigEndian, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCDR(cdrMessage(tc.order, tc.header))
			first := c.Scalar(KindUint8, "u8")
			shorts := c.Numbers(KindInt16, c.Count(2, 0, "i16"), "i16")
			floats := c.F64s()
			longs := c.Numbers(KindUint64, c.Count(8, 0, "u64"), "u64")
			if err := c.End("test"); err != nil {
				t.Fatal(err)
			}
			if first != uint8(1) || !reflect.DeepEqual(shorts, []int16{-2, 7}) ||
				!reflect.DeepEqual(floats, []float64{1.5, -2}) || !reflect.DeepEqual(longs, []uint64{1 << 40, 3}) {
				t.Errorf("got %v %v %v %v", first, shorts, floats, longs)
			}
		})
	}
}

// TestCursorShort: a read past the end fails once, with ErrShort, for
// both encodings, and later reads return zero values.
func TestCursorShort(t *testing.T) {
	for _, c := range []Cursor{NewROS1([]byte{1, 2}), NewCDR([]byte{0, 1, 0, 0, 9, 0})} {
		if c.U8() != c.b[c.off-1] {
			t.Fatal("first byte")
		}
		if v := c.U32(); v != 0 || !errors.Is(c.Err(), ErrShort) {
			t.Fatalf("U32 past the end: %d, %v", v, c.Err())
		}
		if v := c.U16(); v != 0 || !errors.Is(c.End("t"), ErrShort) {
			t.Fatalf("after a failure: %d, %v", v, c.End("t"))
		}
	}
}
