package cdr

import (
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// Errors wrapped by decode errors (rosmsg's, the same for ROS1).
var (
	// ErrShort: the message ended early, or a length in it is larger
	// than the bytes that remain.
	ErrShort = rosmsg.ErrShort
	// ErrTrailing: more than alignment padding remains after the last field.
	ErrTrailing = rosmsg.ErrTrailing
	// ErrEncapsulation: the 4-byte encapsulation header is not plain
	// XCDR1 (CDR_LE 00 01 or CDR_BE 00 00).
	ErrEncapsulation = rosmsg.ErrEncapsulation
	// ErrBound: a sequence or string is longer than its declared bound.
	ErrBound = rosmsg.ErrBound
	// ErrBudget: decoding dynamically would take more memory than
	// DecodeBudget allows for the message's size.
	ErrBudget = rosmsg.ErrBudget
)

// DecodeBudget is the memory Decode may materialize for a message of
// size bytes: the same rule as ros/msg (64 KiB plus 16x its size), so a
// hostile message (millions of one-byte nested messages) is refused with
// ErrBudget before its array exists.
func DecodeBudget(size int) int { return rosmsg.DecodeBudget(size) }

// Decode decodes one serialized message (encapsulation header included)
// of type d into a *msg.Value whose Def is d.Value(): field values have
// the Go types msg.Value documents (byte and char are uint8, wstring a
// UTF-8 string, builtin_interfaces/Time a nested *msg.Value with sec and
// nanosec). Every length is checked against the bytes that remain and
// every allocation against DecodeBudget(len(b)) first.
func (d *Definition) Decode(b []byte) (*msg.Value, error) {
	r := dec{rosmsg.NewCDR(b)}
	r.LimitMemory()
	v := r.value(d)
	if err := r.End(d.Type); err != nil {
		return nil, err
	}
	return v, nil
}

// dec decodes XCDR1 dynamically, over rosmsg's Cursor.
type dec struct{ rosmsg.Cursor }

func (r *dec) value(d *Definition) *msg.Value {
	if !r.Charge(rosmsg.ValueBytes+rosmsg.AnyBytes*len(d.Fields), d.Type) {
		return nil
	}
	v := &msg.Value{Def: d.value, Fields: make([]any, len(d.Fields))}
	for i := range d.Fields {
		f := &d.Fields[i]
		switch f.Array {
		case ArrayNone:
			v.Fields[i] = r.single(f)
		case ArrayFixed:
			r.CheckFixed(f.Len, elemMinSize(f), f.Name)
			v.Fields[i] = r.array(f, f.Len)
		default:
			bound := 0
			if f.Array == ArrayBounded {
				bound = f.Len
			}
			v.Fields[i] = r.array(f, r.Count(elemMinSize(f), bound, f.Name))
		}
		if r.Err() != nil {
			return v
		}
	}
	return v
}

func elemMinSize(f *Field) int {
	if f.Kind == rosmsg.KindMessage {
		return f.Msg.minSize
	}
	return f.Kind.MinWire(0)
}

func (r *dec) single(f *Field) any {
	switch f.Kind {
	case rosmsg.KindMessage:
		return r.value(f.Msg)
	case rosmsg.KindString:
		return r.String(f.StringBound, true, f.Name)
	case rosmsg.KindWString:
		return r.WString(f.StringBound, f.Name)
	}
	return r.Scalar(f.Kind, f.Name)
}

// array decodes n elements; the caller checked n against the remaining
// bytes, so the allocations are bounded by the message size and budget.
func (r *dec) array(f *Field, n int) any {
	if r.Err() != nil {
		return nil
	}
	elem := f.Kind.Size()
	switch f.Kind {
	case rosmsg.KindString, rosmsg.KindWString:
		elem = rosmsg.AnyBytes
	case rosmsg.KindMessage:
		elem = rosmsg.PtrBytes + rosmsg.ValueBytes // each element is at least a Value
	}
	if !r.Charge(rosmsg.SliceBytes+n*elem, f.Name) {
		return nil
	}
	switch f.Kind {
	case rosmsg.KindString:
		return rosmsg.Fill(n, func() string { return r.String(f.StringBound, false, f.Name) })
	case rosmsg.KindWString:
		return rosmsg.Fill(n, func() string { return r.WString(f.StringBound, f.Name) })
	case rosmsg.KindMessage:
		out := make([]*msg.Value, 0, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			out = append(out, r.value(f.Msg))
		}
		return out
	}
	return r.Numbers(f.Kind, n, f.Name)
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
