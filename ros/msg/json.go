package msg

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONByteLimit: uint8/char arrays (and int8/byte arrays) longer than
// this are rendered as {"bytes": N} instead of their contents, so an
// image prints as its width, height, encoding and byte count.
const JSONByteLimit = 64

// MarshalJSON renders v as one JSON object with fields in definition
// order. Conventions: time and duration are {"secs":S,"nsecs":N}; a
// string that is not valid UTF-8 is {"base64":"..."} (ROS strings are
// bytes); NaN and infinities are the strings "NaN", "+Inf", "-Inf"; byte
// arrays longer than JSONByteLimit are {"bytes":N}.
func (v *Value) MarshalJSON() ([]byte, error) {
	return v.AppendJSON(nil), nil
}

// AppendJSON appends v's JSON rendering (see MarshalJSON) to b.
func (v *Value) AppendJSON(b []byte) []byte { return v.appendJSON(b, JSONByteLimit) }

// AppendJSONBytes is AppendJSON with every byte array's values printed,
// however long (edged echo --bytes).
func (v *Value) AppendJSONBytes(b []byte) []byte { return v.appendJSON(b, math.MaxInt) }

// appendJSON renders v; byte arrays longer than byteLimit are counted.
func (v *Value) appendJSON(b []byte, byteLimit int) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, f := range v.Def.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, f.Name)
		b = append(b, ':')
		b = appendAny(b, v.Fields[i], byteLimit)
	}
	return append(b, '}')
}

// appendAny renders one field value as Decode produces it: a scalar, an
// array of them, or a nested message.
func appendAny(b []byte, x any, lim int) []byte {
	if out, ok := appendScalar(b, x, lim); ok {
		return out
	}
	if out, ok := appendArray(b, x, lim); ok {
		return out
	}
	// not a type Decode produces; render it the standard way
	j, err := json.Marshal(x)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// appendScalar renders x when it is nil, a nested message or a single
// value of a ROS primitive type; ok is false for anything else.
func appendScalar(b []byte, x any, lim int) (out []byte, ok bool) {
	switch x := x.(type) {
	case nil:
		return append(b, "null"...), true
	case *Value:
		return x.appendJSON(b, lim), true
	case bool:
		return strconv.AppendBool(b, x), true
	case int8:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), true
	case int16:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), true
	case int32:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case uint64:
		return strconv.AppendUint(b, x, 10), true
	case float32:
		return appendFloat(b, float64(x), 32), true
	case float64:
		return appendFloat(b, x, 64), true
	case string:
		return appendString(b, x), true
	case Time:
		return appendSecs(b, int64(x.Sec), int64(x.NSec)), true
	case Duration:
		return appendSecs(b, int64(x.Sec), int64(x.NSec)), true
	}
	return b, false
}

// appendArray renders x when it is an array Decode produces; byte
// arrays (uint8 and int8) longer than lim are counted, not printed.
func appendArray(b []byte, x any, lim int) (out []byte, ok bool) {
	switch x := x.(type) {
	case []byte:
		return appendBytes(b, x, lim), true
	case []int8:
		if len(x) > lim {
			return appendCount(b, len(x)), true
		}
		return appendSlice(b, x, lim), true
	case []bool:
		return appendSlice(b, x, lim), true
	case []int16:
		return appendSlice(b, x, lim), true
	case []uint16:
		return appendSlice(b, x, lim), true
	case []int32:
		return appendSlice(b, x, lim), true
	case []uint32:
		return appendSlice(b, x, lim), true
	case []int64:
		return appendSlice(b, x, lim), true
	case []uint64:
		return appendSlice(b, x, lim), true
	case []float32:
		return appendSlice(b, x, lim), true
	case []float64:
		return appendSlice(b, x, lim), true
	case []string:
		return appendSlice(b, x, lim), true
	case []Time:
		return appendSlice(b, x, lim), true
	case []Duration:
		return appendSlice(b, x, lim), true
	case []*Value:
		return appendSlice(b, x, lim), true
	}
	return b, false
}

func appendSlice[T any](b []byte, xs []T, lim int) []byte {
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAny(b, xs[i], lim)
	}
	return append(b, ']')
}

func appendBytes(b []byte, x []byte, lim int) []byte {
	if len(x) > lim {
		return appendCount(b, len(x))
	}
	b = append(b, '[')
	for i, c := range x {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(c), 10)
	}
	return append(b, ']')
}

func appendCount(b []byte, n int) []byte {
	b = append(b, `{"bytes":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '}')
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		b = append(b, `{"base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s))
		return append(b, `"}`...)
	}
	j, _ := json.Marshal(s) // valid UTF-8: cannot fail
	return append(b, j...)
}

func appendSecs(b []byte, sec, nsec int64) []byte {
	b = append(b, `{"secs":`...)
	b = strconv.AppendInt(b, sec, 10)
	b = append(b, `,"nsecs":`...)
	b = strconv.AppendInt(b, nsec, 10)
	return append(b, '}')
}
