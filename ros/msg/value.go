package msg

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Value is a dynamically decoded message: Fields[i] is the value of
// Def.Fields[i], in definition order. The Go type of a field value is:
//
//	bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
//	float32, float64, string (the bytes as sent), Time, Duration, *Value
//
// and for arrays []byte (uint8[] and char[]), []int8 (int8[] and byte[]),
// []bool, []int16, []uint16, []int32, []uint32, []int64, []uint64,
// []float32, []float64, []string, []Time, []Duration or []*Value.
// A Value owns its memory: nothing aliases the decoded buffer.
type Value struct {
	Def    *Definition
	Fields []any
}

// MaxDecodeAmplification and minDecodeBudget make DecodeBudget.
const (
	MaxDecodeAmplification = 16
	minDecodeBudget        = 64 << 10
)

// DecodeBudget is the memory Decode may materialize for a message of
// size bytes: 64 KiB plus 16x its size. Typical messages take 1-8x (a
// float64[] 1x, small structs of strings up to ~13x); what would take
// more (an array of millions of empty or one-byte messages, 40-56x) is
// refused with ErrBudget before the array is allocated, so a hostile
// message costs at most this, never its ~40x.
func DecodeBudget(size int) int { return minDecodeBudget + MaxDecodeAmplification*size }

// Decode decodes one serialized message of type d. Every length is
// checked against the bytes that remain before allocating, and every
// element it materializes is charged against DecodeBudget(len(b)) before
// it is allocated (ErrBudget); the whole buffer must be consumed.
func (d *Definition) Decode(b []byte) (*Value, error) {
	r := dec{b: b, budget: DecodeBudget(len(b)), limited: true}
	v := r.value(d)
	if err := r.end(d.Type); err != nil {
		return nil, err
	}
	return v, nil
}

// Field returns the value of the named field.
func (v *Value) Field(name string) (any, bool) {
	i := v.Def.FieldIndex(name)
	if i < 0 {
		return nil, false
	}
	return v.Fields[i], true
}

func (r *dec) value(d *Definition) *Value {
	if !r.charge(valueBytes+anyBytes*len(d.Fields), d.Type) {
		return nil
	}
	v := &Value{Def: d, Fields: make([]any, len(d.Fields))}
	for i := range d.Fields {
		f := &d.Fields[i]
		switch {
		case !f.IsArray && f.Kind == KindMessage:
			v.Fields[i] = r.value(f.Msg)
		case !f.IsArray:
			v.Fields[i] = r.scalar(f.Kind)
		default:
			n := f.ArrayLen
			if n < 0 {
				n = r.count(elemMinSize(f), f.Name)
			} else if uint64(n)*uint64(max(elemMinSize(f), 1)) > uint64(r.remaining()) {
				r.fail(f.Name, n*max(elemMinSize(f), 1))
			}
			v.Fields[i] = r.array(f, n)
		}
		if r.err != nil {
			return v
		}
	}
	return v
}

func elemMinSize(f *Field) int {
	switch f.Kind {
	case KindString:
		return 4
	case KindMessage:
		return f.Msg.minSize
	}
	return f.Kind.size()
}

func (r *dec) scalar(k Kind) any {
	if k.size() > 1 && !r.charge(8, "number") { // boxed in its Fields entry
		return nil
	}
	switch k {
	case KindBool:
		return r.u8() != 0
	case KindInt8:
		return int8(r.u8())
	case KindUint8:
		return r.u8()
	case KindInt16:
		return int16(r.u16())
	case KindUint16:
		return r.u16()
	case KindInt32:
		return int32(r.u32())
	case KindUint32:
		return r.u32()
	case KindInt64:
		return int64(r.u64())
	case KindUint64:
		return r.u64()
	case KindFloat32:
		return math.Float32frombits(r.u32())
	case KindFloat64:
		return r.f64()
	case KindString:
		return r.string()
	case KindTime:
		return r.time()
	case KindDuration:
		return Duration{Sec: int32(r.u32()), NSec: int32(r.u32())}
	}
	r.err = fmt.Errorf("field of invalid kind %d", k)
	return nil
}

// array decodes n elements; the caller checked n against the remaining
// bytes, so the allocations here are bounded by the message size.
func (r *dec) array(f *Field, n int) any {
	if r.err != nil {
		return nil
	}
	elem := f.Kind.size() // Go size of a number, Time or Duration
	switch f.Kind {
	case KindString:
		elem = anyBytes // a string header
	case KindMessage:
		elem = ptrBytes
		// refuse before allocating: every element takes at least minMem
		if r.limited && uint64(n)*uint64(ptrBytes+f.Msg.minMem) > uint64(max(r.budget, 0)) {
			r.charge(int(min(uint64(n)*uint64(ptrBytes+f.Msg.minMem), maxMem)), f.Name)
			return nil
		}
	}
	if !r.charge(sliceBytes+n*elem, f.Name) {
		return nil
	}
	if sz := f.Kind.size(); sz > 0 && f.Kind != KindTime && f.Kind != KindDuration {
		return r.numbers(f.Kind, r.take(n*sz, f.Name), n)
	}
	switch f.Kind {
	case KindString:
		return fill(n, r.arrayString)
	case KindTime:
		return fill(n, r.time)
	case KindDuration:
		return fill(n, func() Duration { return Duration{Sec: int32(r.u32()), NSec: int32(r.u32())} })
	default:
		out := make([]*Value, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			out = append(out, r.value(f.Msg))
		}
		return out
	}
}

// string reads a string field, charging its bytes before copying them.
func (r *dec) string() string {
	p := r.bytes("string")
	if !r.charge(anyBytes+len(p), "string") {
		return ""
	}
	return string(p)
}

// arrayString reads one element of a string array, whose header the
// array's charge already covered.
func (r *dec) arrayString() string {
	p := r.bytes("string")
	if !r.charge(len(p), "string") {
		return ""
	}
	return string(p)
}

func fill[T any](n int, next func() T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

func (r *dec) numbers(k Kind, p []byte, n int) any {
	if p == nil && n > 0 {
		return nil
	}
	le := binary.LittleEndian
	switch k {
	case KindUint8:
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
	default: // KindFloat64
		return conv(n, func(i int) float64 { return math.Float64frombits(le.Uint64(p[8*i:])) })
	}
}

func conv[T any](n int, at func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = at(i)
	}
	return out
}
