package xmlrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// EncodeCall writes a methodCall document.
func EncodeCall(method string, params ...any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?>` + "\n<methodCall><methodName>")
	escape(&b, method)
	b.WriteString("</methodName><params>")
	for i, p := range params {
		b.WriteString("<param>")
		if err := encodeValue(&b, p, 0); err != nil {
			return nil, fmt.Errorf("xmlrpc: param %d of %s: %w", i, method, err)
		}
		b.WriteString("</param>")
	}
	b.WriteString("</params></methodCall>\n")
	return b.Bytes(), nil
}

// EncodeResponse writes a methodResponse holding one value.
func EncodeResponse(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?>` + "\n<methodResponse><params><param>")
	if err := encodeValue(&b, v, 0); err != nil {
		return nil, fmt.Errorf("xmlrpc: response: %w", err)
	}
	b.WriteString("</param></params></methodResponse>\n")
	return b.Bytes(), nil
}

// EncodeFault writes a methodResponse holding a fault.
func EncodeFault(f *Fault) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?>` + "\n<methodResponse><fault>")
	// Cannot fail: only an int and a string.
	_ = encodeValue(&b, map[string]any{"faultCode": f.Code, "faultString": f.Message}, 0)
	b.WriteString("</fault></methodResponse>\n")
	return b.Bytes()
}

func escape(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s)) // writes to a bytes.Buffer never fail
}

func writeInt(b *bytes.Buffer, n int64) {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		b.WriteString("<value><i4>")
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteString("</i4></value>")
		return
	}
	b.WriteString("<value><i8>")
	b.WriteString(strconv.FormatInt(n, 10))
	b.WriteString("</i8></value>")
}

func encodeValue(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("nesting deeper than %d", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("<value><nil/></value>")
	case string:
		b.WriteString("<value><string>")
		escape(b, x)
		b.WriteString("</string></value>")
	case int:
		writeInt(b, int64(x))
	case int32:
		writeInt(b, int64(x))
	case int64:
		writeInt(b, x)
	case bool:
		if x {
			b.WriteString("<value><boolean>1</boolean></value>")
		} else {
			b.WriteString("<value><boolean>0</boolean></value>")
		}
	case float64:
		b.WriteString("<value><double>")
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		b.WriteString("</double></value>")
	case []byte:
		b.WriteString("<value><base64>")
		b.WriteString(base64.StdEncoding.EncodeToString(x))
		b.WriteString("</base64></value>")
	case time.Time:
		b.WriteString("<value><dateTime.iso8601>")
		b.WriteString(x.UTC().Format("20060102T15:04:05"))
		b.WriteString("</dateTime.iso8601></value>")
	case []any:
		b.WriteString("<value><array><data>")
		for _, e := range x {
			if err := encodeValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array></value>")
	case []string:
		b.WriteString("<value><array><data>")
		for _, e := range x {
			_ = encodeValue(b, e, depth+1)
		}
		b.WriteString("</data></array></value>")
	case map[string]any:
		return encodeStruct(b, reflect.ValueOf(x), depth)
	default:
		return encodeReflect(b, reflect.ValueOf(v), depth)
	}
	return nil
}

func encodeReflect(b *bytes.Buffer, rv reflect.Value, depth int) error {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		writeInt(b, rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return fmt.Errorf("unsigned %d does not fit i8", u)
		}
		writeInt(b, int64(u))
	case reflect.Float32, reflect.Float64:
		return encodeValue(b, rv.Float(), depth)
	case reflect.String:
		return encodeValue(b, rv.String(), depth)
	case reflect.Bool:
		return encodeValue(b, rv.Bool(), depth)
	case reflect.Slice, reflect.Array:
		b.WriteString("<value><array><data>")
		for i := 0; i < rv.Len(); i++ {
			if err := encodeValue(b, rv.Index(i).Interface(), depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array></value>")
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("cannot encode %s: struct keys must be strings", rv.Type())
		}
		return encodeStruct(b, rv, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return encodeValue(b, nil, depth)
		}
		return encodeValue(b, rv.Elem().Interface(), depth)
	default:
		return fmt.Errorf("cannot encode %s", rv.Type())
	}
	return nil
}

func encodeStruct(b *bytes.Buffer, rv reflect.Value, depth int) error {
	keys := make([]string, 0, rv.Len())
	for _, k := range rv.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys) // deterministic output
	b.WriteString("<value><struct>")
	for _, k := range keys {
		b.WriteString("<member><name>")
		escape(b, k)
		b.WriteString("</name>")
		if err := encodeValue(b, rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface(), depth+1); err != nil {
			return err
		}
		b.WriteString("</member>")
	}
	b.WriteString("</struct></value>")
	return nil
}
