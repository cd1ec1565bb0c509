package cdr

import (
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/edged-robotics/edged/ros/msg"
)

// DecodeBudget is the memory Decode may materialize for a message of
// size bytes: the same rule as ros/msg (64 KiB plus 16x its size), so a
// hostile message (millions of one-byte nested messages) is refused with
// ErrBudget before its array exists.
func DecodeBudget(size int) int { return msg.DecodeBudget(size) }

// Memory a decoded Value takes on a 64-bit machine, charged against the
// budget before it is allocated.
const (
	valueBytes = 32 // the Value struct
	anyBytes   = 16 // one Fields entry, or a string header
	sliceBytes = 24
	ptrBytes   = 8
)

// Decode decodes one serialized message (encapsulation header included)
// of type d into a *msg.Value whose Def is d.Value(): field values have
// the Go types msg.Value documents (byte and char are uint8, wstring a
// UTF-8 string, builtin_interfaces/Time a nested *msg.Value with sec and
// nanosec). Every length is checked against the bytes that remain and
// every allocation against DecodeBudget(len(b)) first.
func (d *Definition) Decode(b []byte) (*msg.Value, error) {
	var r dec
	r.start(b)
	r.budget, r.limited = DecodeBudget(len(b)), true
	v := r.value(d)
	if err := r.end(d.Type); err != nil {
		return nil, err
	}
	return v, nil
}

// charge takes n bytes of memory from the budget before they are
// allocated; false (and ErrBudget) when they do not fit.
func (r *dec) charge(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if r.limited && n > r.budget {
		r.err = fmt.Errorf("%w: %s needs %d more bytes at offset %d, %d of the budget left", ErrBudget, what, n, r.off, r.budget)
		return false
	}
	r.budget -= n
	return true
}

func (r *dec) value(d *Definition) *msg.Value {
	if !r.charge(valueBytes+anyBytes*len(d.Fields), d.Type) {
		return nil
	}
	v := &msg.Value{Def: d.value, Fields: make([]any, len(d.Fields))}
	for i := range d.Fields {
		f := &d.Fields[i]
		switch f.Array {
		case ArrayNone:
			v.Fields[i] = r.single(f)
		case ArrayFixed:
			if uint64(f.Len)*uint64(max(elemMinSize(f), 1)) > uint64(r.remaining()) {
				r.fail(f.Name, f.Len*max(elemMinSize(f), 1))
			}
			v.Fields[i] = r.array(f, f.Len)
		default:
			bound := 0
			if f.Array == ArrayBounded {
				bound = f.Len
			}
			v.Fields[i] = r.array(f, r.count(elemMinSize(f), bound, f.Name))
		}
		if r.err != nil {
			return v
		}
	}
	return v
}

func elemMinSize(f *Field) int {
	switch f.Kind {
	case KindString, KindWString:
		return 4
	case KindMessage:
		return f.Msg.minSize
	}
	return f.Kind.size()
}

func (r *dec) single(f *Field) any {
	switch f.Kind {
	case KindMessage:
		return r.value(f.Msg)
	case KindString:
		p := r.strBytes(f.StringBound)
		if !r.charge(anyBytes+len(p), f.Name) {
			return nil
		}
		return string(p)
	case KindWString:
		return r.wstring(f.StringBound, f.Name)
	}
	if f.Kind.size() > 1 && !r.charge(8, f.Name) { // boxed in its Fields entry
		return nil
	}
	return r.scalar(f.Kind)
}

func (r *dec) scalar(k Kind) any {
	switch k {
	case KindBool:
		return r.u8() != 0
	case KindByte, KindUint8:
		return r.u8()
	case KindInt8:
		return int8(r.u8())
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
	}
	r.err = fmt.Errorf("field of invalid kind %d", k)
	return nil
}

// wstring reads a wide string as ROS 2's typesupport writes it: a uint32
// count of UTF-16 code units, then the units (no terminator counted).
func (r *dec) wstring(bound int, what string) string {
	n := r.count(2, bound, what)
	if !r.charge(anyBytes+3*n, what) {
		return ""
	}
	units := make([]uint16, n)
	for i := range units {
		units[i] = r.u16()
	}
	return string(utf16.Decode(units))
}

// array decodes n elements; the caller checked n against the remaining
// bytes, so the allocations are bounded by the message size and budget.
func (r *dec) array(f *Field, n int) any {
	if r.err != nil {
		return nil
	}
	elem := f.Kind.size()
	switch f.Kind {
	case KindString, KindWString:
		elem = anyBytes
	case KindMessage:
		elem = ptrBytes + valueBytes // each element is at least a Value
	}
	if !r.charge(sliceBytes+n*elem, f.Name) {
		return nil
	}
	switch f.Kind {
	case KindString:
		return fill(n, func() string {
			p := r.strBytes(f.StringBound)
			if !r.charge(len(p), f.Name) {
				return ""
			}
			return string(p)
		})
	case KindWString:
		return fill(n, func() string { return r.wstring(f.StringBound, f.Name) })
	case KindMessage:
		out := make([]*msg.Value, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			out = append(out, r.value(f.Msg))
		}
		return out
	}
	return r.numbers(f.Kind, n)
}

func fill[T any](n int, next func() T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

func (r *dec) numbers(k Kind, n int) any {
	switch k {
	case KindByte, KindUint8:
		return append([]byte(nil), r.take(n, "uint8[]")...)
	case KindBool:
		return fill(n, func() bool { return r.u8() != 0 })
	case KindInt8:
		return fill(n, func() int8 { return int8(r.u8()) })
	case KindInt16:
		return fill(n, func() int16 { return int16(r.u16()) })
	case KindUint16:
		return fill(n, r.u16)
	case KindInt32:
		return fill(n, func() int32 { return int32(r.u32()) })
	case KindUint32:
		return fill(n, r.u32)
	case KindFloat32:
		return fill(n, func() float32 { return math.Float32frombits(r.u32()) })
	case KindInt64:
		return fill(n, func() int64 { return int64(r.u64()) })
	case KindUint64:
		return fill(n, r.u64)
	default: // KindFloat64
		return fill(n, r.f64)
	}
}

// Stamp returns the header stamp of a decoded message whose definition
// HasHeader, as a ROS1 time (negative seconds are unset).
func Stamp(v *msg.Value) (msg.Time, bool) {
	if v == nil || len(v.Fields) == 0 || len(v.Def.Fields) == 0 || v.Def.Fields[0].Name != "header" ||
		v.Def.Fields[0].Type != "std_msgs/Header" {
		return msg.Time{}, false
	}
	h, _ := v.Fields[0].(*msg.Value)
	if h == nil {
		return msg.Time{}, false
	}
	s, _ := h.Field("stamp")
	st, _ := s.(*msg.Value)
	if st == nil || len(st.Fields) != 2 {
		return msg.Time{}, false
	}
	sec, ok1 := st.Fields[0].(int32)
	nsec, ok2 := st.Fields[1].(uint32)
	if !ok1 || !ok2 {
		return msg.Time{}, false
	}
	if sec < 0 {
		return msg.Time{}, true
	}
	return msg.Time{Sec: uint32(sec), NSec: nsec}, true
}
