package msg

import "github.com/edged-robotics/edged/rosmsg"

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

// Errors wrapped by decode errors (rosmsg's, the same for ROS 2).
var (
	// ErrShort: the message ended early or a length in it is larger than
	// the bytes that remain.
	ErrShort = rosmsg.ErrShort
	// ErrTrailing: bytes remain after the last field.
	ErrTrailing = rosmsg.ErrTrailing
	// ErrBudget: decoding a message dynamically would take more memory
	// than DecodeBudget allows for its size.
	ErrBudget = rosmsg.ErrBudget
)

// MaxDecodeAmplification is how many times its size a message may take
// once decoded dynamically (see DecodeBudget).
const MaxDecodeAmplification = rosmsg.MaxDecodeAmplification

// DecodeBudget is the memory Decode may materialize for a message of
// size bytes: 64 KiB plus 16x its size. Typical messages take 1-8x (a
// float64[] 1x, small structs of strings up to ~13x); what would take
// more (an array of millions of empty or one-byte messages, 40-56x) is
// refused with ErrBudget before the array is allocated, so a hostile
// message costs at most this, never its ~40x.
func DecodeBudget(size int) int { return rosmsg.DecodeBudget(size) }

// Decode decodes one serialized message of type d. Every length is
// checked against the bytes that remain before allocating, and every
// element it materializes is charged against DecodeBudget(len(b)) before
// it is allocated (ErrBudget); the whole buffer must be consumed.
func (d *Definition) Decode(b []byte) (*Value, error) {
	r := dec{rosmsg.NewROS1(b)}
	r.LimitMemory()
	v := r.value(d)
	if err := r.End(d.Type); err != nil {
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

// dec decodes ROS1 serialization dynamically, over rosmsg's Cursor.
type dec struct{ rosmsg.Cursor }

func (r *dec) value(d *Definition) *Value {
	if !r.Charge(rosmsg.ValueBytes+rosmsg.AnyBytes*len(d.Fields), d.Type) {
		return nil
	}
	v := &Value{Def: d, Fields: make([]any, len(d.Fields))}
	for i := range d.Fields {
		f := &d.Fields[i]
		switch {
		case !f.IsArray && f.Kind == KindMessage:
			v.Fields[i] = r.value(f.Msg)
		case !f.IsArray && f.Kind == KindString:
			v.Fields[i] = r.String(0, true, "string")
		case !f.IsArray:
			v.Fields[i] = r.Scalar(f.Kind, "number")
		default:
			n := f.ArrayLen
			if n < 0 {
				n = r.Count(elemMinSize(f), 0, f.Name)
			} else {
				r.CheckFixed(n, elemMinSize(f), f.Name)
			}
			v.Fields[i] = r.array(f, n)
		}
		if r.Err() != nil {
			return v
		}
	}
	return v
}

func elemMinSize(f *Field) int {
	if f.Kind == KindMessage {
		return f.Msg.minSize
	}
	return f.Kind.MinWire(0)
}

// array decodes n elements; the caller checked n against the remaining
// bytes, so the allocations here are bounded by the message size.
func (r *dec) array(f *Field, n int) any {
	if r.Err() != nil {
		return nil
	}
	elem := f.Kind.Size() // Go size of a number, Time or Duration
	switch f.Kind {
	case KindString:
		elem = rosmsg.AnyBytes // a string header
	case KindMessage:
		elem = rosmsg.PtrBytes
		// refuse before allocating: every element takes at least minMem
		if need := uint64(n) * uint64(rosmsg.PtrBytes+f.Msg.minMem); !r.Affords(need) {
			r.Charge(int(min(need, rosmsg.MaxMem)), f.Name)
			return nil
		}
	}
	if !r.Charge(rosmsg.SliceBytes+n*elem, f.Name) {
		return nil
	}
	switch f.Kind {
	case KindString:
		return rosmsg.Fill(n, func() string { return r.String(0, false, "string") })
	case KindMessage:
		out := make([]*Value, 0, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			out = append(out, r.value(f.Msg))
		}
		return out
	}
	return r.Numbers(f.Kind, n, f.Name)
}
