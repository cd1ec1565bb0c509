package rosmsg

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Parsed is one type's own text parsed: fields and constants in order,
// nested types named but not yet resolved (see Resolve).
type Parsed struct {
	Type      string
	Text      string // the type's own text (without nested blocks)
	Fields    []Field
	Constants []Constant
}

// Field is one parsed field.
type Field struct {
	Name string
	// Type is the element type: a builtin name or the full name of a
	// message type in the dialect's spelling.
	Type string
	Raw  string // the type as written, e.g. "uint8[]" (ROS1's md5 uses it)
	Kind Kind
	// Array: ArrayNone for a single value; ArrayFixed holds exactly Len
	// elements (no length on the wire); ArrayUnbounded and ArrayBounded
	// (ROS 2) have a uint32 count (at most Len when bounded).
	Array ArrayKind
	Len   int
	// StringBound is the <=N of a ROS 2 bounded string (0: none).
	StringBound int
	Default     string // a ROS 2 default value's text, "" when none
}

// ArrayKind says whether and how a field is an array.
type ArrayKind uint8

// The array kinds of a field.
const (
	ArrayNone ArrayKind = iota
	ArrayFixed
	ArrayUnbounded
	ArrayBounded
)

// Constant is a constant declared in a definition. Value is its text: a
// ROS1 string constant keeps everything right of '=' ('#' included), a
// ROS 2 one is unquoted.
type Constant struct {
	Type  string
	Name  string
	Value string
}

// ParseText parses one type's own text (typeName in the dialect's full
// spelling); nested types stay unresolved.
func (d *Dialect) ParseText(typeName, text string) (*Parsed, error) {
	p := &Parsed{Type: typeName, Text: text}
	names := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		clean := strings.TrimSpace(StripComment(line))
		if clean == "" {
			continue
		}
		name, err := d.parseLine(p, line, clean)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", typeName, n+1, err)
		}
		if names[name] {
			return nil, d.Errorf("%s line %d: %q declared twice", typeName, n+1, name)
		}
		names[name] = true
	}
	return p, nil
}

// StripComment cuts a '#' comment, but not one inside a quoted string
// (a string default or constant may hold '#').
func StripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}

// parseLine parses "TYPE NAME", "TYPE NAME=VALUE" or (ROS 2) "TYPE NAME
// DEFAULT" and returns the declared name.
func (d *Dialect) parseLine(p *Parsed, line, clean string) (string, error) {
	i := strings.IndexFunc(clean, unicode.IsSpace) // type and name may be apart by any white space
	if i < 0 {
		return "", d.Errorf("%q: want TYPE NAME", clean)
	}
	typ, rest := clean[:i], strings.TrimSpace(clean[i:])
	if rest == "" {
		return "", d.Errorf("%q: want TYPE NAME", clean)
	}
	end := 0
	for end < len(rest) && (rest[end] == '_' || rest[end] >= '0' && rest[end] <= '9' ||
		rest[end]|0x20 >= 'a' && rest[end]|0x20 <= 'z') {
		end++
	}
	name, tail := rest[:end], strings.TrimSpace(rest[end:])
	if !ValidName(name) {
		return "", d.Errorf("%q: bad name %q", clean, rest)
	}
	if val, isConst := strings.CutPrefix(tail, "="); isConst {
		c, err := d.parseConstant(typ, name, strings.TrimSpace(val), line)
		p.Constants = append(p.Constants, c)
		return name, err
	}
	if tail != "" && !d.defaults {
		return "", d.Errorf("%q: want TYPE NAME (default values are ROS 2 only)", clean)
	}
	f, err := d.parseField(Package(p.Type), typ, name)
	if err != nil {
		return "", err
	}
	f.Default = tail
	p.Fields = append(p.Fields, f)
	return name, nil
}

func (d *Dialect) parseConstant(typ, name, val, line string) (Constant, error) {
	k, ok := d.builtins[typ]
	if !ok || k == KindTime || k == KindDuration {
		return Constant{}, d.Errorf("constant %s: type %q must be a builtin number, bool or string", name, typ)
	}
	if k == KindString || k == KindWString {
		return Constant{Type: typ, Name: name, Value: d.stringConstant(val, line)}, d.checkSet(name, typ, val)
	}
	if err := d.checkSet(name, typ, val); err != nil {
		return Constant{}, err
	}
	if err := d.checkNumber(k, val); err != nil {
		return Constant{}, d.Errorf("constant %s: %v", name, err)
	}
	return Constant{Type: typ, Name: name, Value: val}, nil
}

// checkSet refuses a constant without a value (a ROS1 string constant
// may be empty).
func (d *Dialect) checkSet(name, typ, val string) error {
	k := d.builtins[typ]
	if val == "" && (d.quotedStrings || k != KindString) {
		return d.Errorf("constant %s: want TYPE NAME=VALUE", name)
	}
	return nil
}

// stringConstant is ROS 2's unquoted value, or ROS1's text right of
// the first '=' of the raw line (comments included, as genmsg keeps it).
func (d *Dialect) stringConstant(val, line string) string {
	if !d.quotedStrings {
		_, v, _ := strings.Cut(line, "=")
		return strings.TrimSpace(v)
	}
	if uq, err := strconv.Unquote(val); err == nil {
		return uq
	}
	if len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'' {
		return val[1 : len(val)-1]
	}
	return val
}

func (d *Dialect) checkNumber(k Kind, val string) error {
	var err error
	switch k {
	case KindBool:
		if !d.isBool(val) {
			err = strconv.ErrSyntax
		}
	case KindFloat32, KindFloat64:
		_, err = strconv.ParseFloat(val, 64)
	case KindInt8, KindInt16, KindInt32, KindInt64:
		_, err = strconv.ParseInt(val, 0, k.Size()*8)
	default:
		_, err = strconv.ParseUint(val, 0, k.Size()*8)
	}
	if err != nil {
		return d.Errorf("value %q is not a valid %v", val, k)
	}
	return nil
}

// parseField parses a field's type: BASE, BASE[N], BASE[], and in ROS 2
// BASE[<=N] and string<=N / wstring<=N.
func (d *Dialect) parseField(pkg, raw, name string) (Field, error) {
	f := Field{Name: name, Raw: raw}
	base, err := d.parseArray(&f, raw)
	if err != nil {
		return Field{}, err
	}
	if b, bound, ok := strings.Cut(base, "<="); ok {
		v, err := strconv.Atoi(bound)
		if !d.bounded || (b != "string" && b != "wstring") || err != nil || v <= 0 || v > MaxFixedArray {
			return Field{}, d.Errorf("field %s: bad bounded string %q", name, raw)
		}
		base, f.StringBound = b, v
	}
	if k, ok := d.builtins[base]; ok {
		f.Type, f.Kind = base, k
		return f, nil
	}
	f.Kind = KindMessage
	t, ok := d.aliases[base]
	switch {
	case ok:
	case strings.Contains(base, "/"):
		t, ok = d.typeName(base)
	default:
		t, ok = d.local(pkg, base), ValidName(base)
	}
	if !ok {
		return Field{}, d.Errorf("field %s: bad type %q", name, base)
	}
	f.Type = t
	return f, nil
}

// parseArray fills f's array kind and length from raw's [..] suffix and
// returns the element type.
func (d *Dialect) parseArray(f *Field, raw string) (string, error) {
	i := strings.IndexByte(raw, '[')
	if i < 0 {
		return raw, nil
	}
	if !strings.HasSuffix(raw, "]") {
		return "", d.Errorf("field %s: bad array type %q", f.Name, raw)
	}
	n := raw[i+1 : len(raw)-1]
	f.Array = ArrayUnbounded
	if n == "" {
		return raw[:i], nil
	}
	f.Array = ArrayFixed
	if b, ok := strings.CutPrefix(n, "<="); ok && d.bounded {
		f.Array, n = ArrayBounded, b
	}
	v, err := strconv.Atoi(n)
	if err != nil || v < 0 || v > MaxFixedArray || (v == 0 && f.Array == ArrayBounded) {
		return "", d.Errorf("field %s: bad array length in %q", f.Name, raw)
	}
	f.Len = v
	return raw[:i], nil
}

// IsArray reports whether the field holds several elements.
func (f *Field) IsArray() bool { return f.Array != ArrayNone }
