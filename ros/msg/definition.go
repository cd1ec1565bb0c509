package msg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the wire type of a field (or of an array's elements).
type Kind uint8

// The builtin kinds, and KindMessage for a nested message type.
const (
	KindInvalid Kind = iota
	KindBool
	KindInt8
	KindUint8
	KindInt16
	KindUint16
	KindInt32
	KindUint32
	KindInt64
	KindUint64
	KindFloat32
	KindFloat64
	KindString
	KindTime
	KindDuration
	KindMessage
)

// builtins maps the builtin type names to their kind. byte and char are
// ROS's deprecated aliases of int8 and uint8.
var builtins = map[string]Kind{
	"bool": KindBool, "int8": KindInt8, "uint8": KindUint8, "byte": KindInt8, "char": KindUint8,
	"int16": KindInt16, "uint16": KindUint16, "int32": KindInt32, "uint32": KindUint32,
	"int64": KindInt64, "uint64": KindUint64, "float32": KindFloat32, "float64": KindFloat64,
	"string": KindString, "time": KindTime, "duration": KindDuration,
}

// size is the fixed wire size of a kind, or 0 for string and message.
func (k Kind) size() int {
	switch k {
	case KindBool, KindInt8, KindUint8:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32, KindFloat32:
		return 4
	case KindInt64, KindUint64, KindFloat64, KindTime, KindDuration:
		return 8
	}
	return 0
}

// Limits of the parser: a definition is small text written by people.
const (
	// MaxDefinitionBytes caps the text Parse accepts.
	MaxDefinitionBytes = 1 << 20
	// MaxNesting caps how deep message types may nest.
	MaxNesting = 32
	// maxFixedArray caps a fixed array length in a definition.
	maxFixedArray = 1 << 24
)

// Definition is one parsed, resolved message type. It is immutable after
// Parse and safe to share.
type Definition struct {
	Type      string // package/Name, e.g. sensor_msgs/Image
	Fields    []Field
	Constants []Constant
	Text      string // this type's own text (without nested blocks)

	md5     string
	minSize int // smallest possible serialized size, for length caps
	minMem  int // smallest memory a decoded *Value of it takes, for the decode budget
}

// Field is one field of a Definition.
type Field struct {
	Name string
	// Type is the element type as ROS normalizes it: a builtin name
	// (uint8, string, time, ...) or package/Name for a message.
	Type     string
	Kind     Kind
	IsArray  bool
	ArrayLen int         // fixed array length; -1 for a variable array
	Msg      *Definition // the nested type when Kind is KindMessage
	// raw is the type as written, e.g. "uint8[]", used by the md5 text.
	raw string
}

// Constant is a constant declared in a definition. Value is its text as
// ROS keeps it (string constants keep everything after '=', '#' included).
type Constant struct {
	Type  string
	Name  string
	Value string
}

// MD5 returns the md5sum of the definition exactly as ROS computes it.
func (d *Definition) MD5() string { return d.md5 }

// FieldIndex returns the index of the named field, or -1.
func (d *Definition) FieldIndex(name string) int {
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// HasHeader reports whether the first field is a std_msgs/Header named
// header, the convention for stamped messages.
func (d *Definition) HasHeader() bool {
	return len(d.Fields) > 0 && d.Fields[0].Name == "header" && !d.Fields[0].IsArray &&
		isHeaderType(d.Fields[0].Type)
}

func isHeaderType(t string) bool { return t == "std_msgs/Header" || t == "roslib/Header" }

// ErrDefinition is wrapped by every error Parse returns.
var ErrDefinition = errors.New("invalid message definition")

func defErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDefinition, fmt.Sprintf(format, args...))
}

// Parse parses the full text of a message definition for typeName (e.g.
// "sensor_msgs/Image"), as publishers send it in the TCPROS header
// message_definition field: the main type's text, then for every nested
// type a line of '=' and a block that starts with "MSG: package/Name".
// Every field type must resolve to a builtin or one of those blocks.
func Parse(typeName, text string) (*Definition, error) {
	if len(text) > MaxDefinitionBytes {
		return nil, defErrorf("%d bytes, more than the %d allowed", len(text), MaxDefinitionBytes)
	}
	if _, _, ok := splitType(typeName); !ok {
		return nil, defErrorf("type %q: want package/Name", typeName)
	}
	main, blocks, err := splitBlocks(text)
	if err != nil {
		return nil, err
	}
	p := &parser{texts: blocks, done: map[string]*Definition{}, busy: map[string]bool{}}
	p.texts[typeName] = main
	return p.resolve(typeName, 0)
}

// splitBlocks separates the main text from the nested MSG: blocks.
func splitBlocks(text string) (string, map[string]string, error) {
	blocks := map[string]string{}
	var main strings.Builder
	var cur *strings.Builder
	var curName string
	flush := func() {
		if cur != nil {
			blocks[curName] = cur.String()
		}
	}
	sep := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(trimmed) >= 3 && strings.Trim(trimmed, "=") == "" {
			sep = true
			continue
		}
		if sep && trimmed == "" {
			continue
		}
		if name, ok := strings.CutPrefix(trimmed, "MSG:"); ok && sep {
			flush()
			curName = strings.TrimSpace(name)
			if _, _, ok := splitType(curName); !ok {
				return "", nil, defErrorf("nested block %q: want MSG: package/Name", trimmed)
			}
			if _, dup := blocks[curName]; dup {
				return "", nil, defErrorf("nested block %s defined twice", curName)
			}
			cur = &strings.Builder{}
			sep = false
			continue
		}
		if sep {
			return "", nil, defErrorf("line %q after a separator: want MSG: package/Name", trimmed)
		}
		w := &main
		if cur != nil {
			w = cur
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
	flush()
	return main.String(), blocks, nil
}

type parser struct {
	texts map[string]string
	done  map[string]*Definition
	busy  map[string]bool // types being resolved: a cycle is an error
}

func (p *parser) resolve(typeName string, depth int) (*Definition, error) {
	if d, ok := p.done[typeName]; ok {
		return d, nil
	}
	if depth > MaxNesting {
		return nil, defErrorf("types nest deeper than %d at %s", MaxNesting, typeName)
	}
	if p.busy[typeName] {
		return nil, defErrorf("type %s contains itself", typeName)
	}
	text, ok := p.texts[typeName]
	if !ok && typeName == "std_msgs/Header" {
		// very old bags and publishers call it roslib/Header
		text, ok = p.texts["roslib/Header"]
	}
	if !ok {
		return nil, defErrorf("no MSG: block for %s", typeName)
	}
	p.busy[typeName] = true
	defer delete(p.busy, typeName)
	d, err := parseText(typeName, text)
	if err != nil {
		return nil, err
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Kind != KindMessage {
			continue
		}
		if f.Msg, err = p.resolve(f.Type, depth+1); err != nil {
			return nil, err
		}
	}
	d.md5 = computeMD5(d)
	d.minSize = minSize(d)
	d.minMem = minMem(d)
	p.done[typeName] = d
	return d, nil
}

func minSize(d *Definition) int {
	n := 0
	for _, f := range d.Fields {
		elem := f.Kind.size()
		switch f.Kind {
		case KindString:
			elem = 4
		case KindMessage:
			elem = f.Msg.minSize
		}
		switch {
		case !f.IsArray:
			n += elem
		case f.ArrayLen < 0:
			n += 4
		default:
			n += elem * f.ArrayLen
		}
		if n > maxFixedArray*8 {
			n = maxFixedArray * 8 // no overflow; such a message fails to decode anyway
		}
	}
	return n
}

// Memory a decoded Value takes on a 64-bit machine, charged against the
// decode budget (see DecodeBudget).
const (
	valueBytes = 32 // the Value struct: Def and the Fields slice header
	anyBytes   = 16 // one Fields entry
	sliceBytes = 24 // an array field's slice header, boxed in its entry
	ptrBytes   = 8  // one element of a []*Value
	maxMem     = 1 << 40
)

// minMem is the least a decoded Value of d allocates: its struct, its
// Fields, and nested messages and fixed arrays of them. It lets an array
// of n messages be refused before its n elements are allocated.
func minMem(d *Definition) int {
	n := valueBytes + anyBytes*len(d.Fields)
	for _, f := range d.Fields {
		switch {
		case f.Kind != KindMessage:
		case !f.IsArray:
			n += f.Msg.minMem
		case f.ArrayLen > 0:
			n += sliceBytes + f.ArrayLen*(ptrBytes+f.Msg.minMem)
		default:
			n += sliceBytes
		}
		if n > maxMem {
			return maxMem // no overflow; such a message is refused anyway
		}
	}
	return n
}

// parseText parses one type's own text; nested types stay unresolved.
func parseText(typeName, text string) (*Definition, error) {
	pkg, _, _ := splitType(typeName)
	d := &Definition{Type: typeName, Text: text}
	names := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		clean, _, _ := strings.Cut(line, "#")
		clean = strings.TrimSpace(clean)
		if clean == "" {
			continue
		}
		var err error
		var name string
		if strings.Contains(clean, "=") {
			var c Constant
			c, err = parseConstant(line, clean)
			d.Constants = append(d.Constants, c)
			name = c.Name
		} else {
			var f Field
			f, err = parseField(pkg, clean)
			d.Fields = append(d.Fields, f)
			name = f.Name
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", typeName, n+1, err)
		}
		if names[name] {
			return nil, defErrorf("%s line %d: %q declared twice", typeName, n+1, name)
		}
		names[name] = true
	}
	return d, nil
}

func parseConstant(line, clean string) (Constant, error) {
	typ, rest, ok := strings.Cut(clean, " ")
	typ = strings.TrimSpace(typ)
	k, builtin := builtins[typ]
	if !ok || !builtin || k == KindTime || k == KindDuration {
		return Constant{}, defErrorf("constant %q: type must be a builtin number, bool or string", clean)
	}
	if typ == "string" {
		// a string constant is everything right of '=', comments included
		line = strings.TrimLeft(line, " \t")
		before, val, _ := strings.Cut(line, "=")
		name := strings.TrimSpace(strings.TrimPrefix(before, "string"))
		if !validName(name) {
			return Constant{}, defErrorf("constant name %q", name)
		}
		return Constant{Type: typ, Name: name, Value: strings.TrimSpace(val)}, nil
	}
	name, val, _ := strings.Cut(rest, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !validName(name) || val == "" {
		return Constant{}, defErrorf("constant %q: want TYPE NAME=VALUE", clean)
	}
	if err := checkConstant(k, val); err != nil {
		return Constant{}, defErrorf("constant %s: %v", name, err)
	}
	return Constant{Type: typ, Name: name, Value: val}, nil
}

func checkConstant(k Kind, val string) error {
	var err error
	switch k {
	case KindBool:
		_, err = strconv.ParseBool(val)
		if val == "0" || val == "1" {
			err = nil
		}
	case KindFloat32, KindFloat64:
		_, err = strconv.ParseFloat(val, 64)
	case KindInt8, KindInt16, KindInt32, KindInt64:
		_, err = strconv.ParseInt(val, 0, k.size()*8)
	default:
		_, err = strconv.ParseUint(val, 0, k.size()*8)
	}
	if err != nil {
		return fmt.Errorf("value %q is not a valid %v", val, k)
	}
	return nil
}

func parseField(pkg, clean string) (Field, error) {
	parts := strings.Fields(clean)
	if len(parts) != 2 {
		return Field{}, defErrorf("field %q: want TYPE NAME", clean)
	}
	raw, name := parts[0], parts[1]
	if !validName(name) {
		return Field{}, defErrorf("field name %q", name)
	}
	f := Field{Name: name, raw: raw, ArrayLen: -1}
	base := raw
	if i := strings.IndexByte(raw, '['); i >= 0 {
		if !strings.HasSuffix(raw, "]") {
			return Field{}, defErrorf("field %q: bad array type", clean)
		}
		base, f.IsArray = raw[:i], true
		if n := raw[i+1 : len(raw)-1]; n != "" {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 || v > maxFixedArray {
				return Field{}, defErrorf("field %q: bad array length", clean)
			}
			f.ArrayLen = v
		}
	}
	if k, ok := builtins[base]; ok {
		f.Type, f.Kind = base, k
		return f, nil
	}
	f.Kind = KindMessage
	switch {
	case base == "Header":
		f.Type = "std_msgs/Header"
	case strings.Contains(base, "/"):
		f.Type = base
	default:
		f.Type = pkg + "/" + base
	}
	if _, _, ok := splitType(f.Type); !ok {
		return Field{}, defErrorf("field %q: bad type %q", clean, base)
	}
	return f, nil
}

func splitType(t string) (pkg, name string, ok bool) {
	pkg, name, ok = strings.Cut(t, "/")
	return pkg, name, ok && validName(pkg) && validName(name)
}

// validName: a letter, then letters, digits and underscores.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c != '_' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

func (k Kind) String() string {
	for name, kk := range builtins {
		if kk == k && name != "byte" && name != "char" {
			return name
		}
	}
	if k == KindMessage {
		return "message"
	}
	return "invalid"
}
