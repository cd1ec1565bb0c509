package cdr

import (
	"encoding/binary"
	"math"
)

// enc writes little-endian XCDR1 for tests, aligned like the decoder.
type enc struct{ b []byte }

func newEnc() *enc { return &enc{b: []byte{0, 1, 0, 0}} }

func (e *enc) align(n int) *enc {
	for (len(e.b)-4)%n != 0 { // alignment counts from after the 4-byte encapsulation header
		e.b = append(e.b, 0)
	}
	return e
}
func (e *enc) u8(v uint8) *enc { e.b = append(e.b, v); return e }
func (e *enc) u32(v uint32) *enc {
	e.align(4)
	e.b = binary.LittleEndian.AppendUint32(e.b, v)
	return e
}
func (e *enc) f64(v float64) *enc {
	e.align(8)
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	return e
}
func (e *enc) str(s string) *enc {
	e.u32(uint32(len(s) + 1))
	e.b = append(append(e.b, s...), 0)
	return e
}
func (e *enc) header(sec int32, nsec uint32, frame string) *enc {
	return e.u32(uint32(sec)).u32(nsec).str(frame)
}

func compressedMsg(data []byte) []byte {
	e := newEnc().header(5, 6, "cam").str("jpeg").u32(uint32(len(data)))
	e.b = append(e.b, data...)
	return e.b
}

func jointMsg() []byte {
	return newEnc().header(1, 2, "base").u32(2).str("a").str("b").u32(2).f64(1.5).f64(-2).u32(0).u32(1).f64(3).b
}
