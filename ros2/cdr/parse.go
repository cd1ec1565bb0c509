package cdr

import (
	"strconv"
	"strings"

	"github.com/edged-robotics/edged/ros/msg"
)

// splitBlocks separates the main text from the nested "MSG: pkg/Name"
// blocks that follow lines of '=' (as rosbag2 and MCAP ros2msg schemas
// carry them). Block names are normalized to pkg/msg/Name.
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
			n, ok := Normalize(strings.TrimSpace(name))
			if !ok {
				return "", nil, defErrorf("nested block %q: want MSG: pkg/Name", trimmed)
			}
			if _, dup := blocks[n]; dup {
				return "", nil, defErrorf("nested block %s defined twice", n)
			}
			cur, curName, sep = &strings.Builder{}, n, false
			continue
		}
		if sep {
			return "", nil, defErrorf("line %q after a separator: want MSG: pkg/Name", trimmed)
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

// parseText parses one type's own text; nested types stay unresolved.
func parseText(typeName, text string) (*Definition, error) {
	d := &Definition{Type: typeName, Text: text}
	names := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		clean := strings.TrimSpace(stripComment(line))
		if clean == "" {
			continue
		}
		name, err := d.parseLine(clean)
		if err != nil {
			return nil, defErrorf("%s line %d: %v", typeName, n+1, err)
		}
		if names[name] {
			return nil, defErrorf("%s line %d: %q declared twice", typeName, n+1, name)
		}
		names[name] = true
	}
	return d, nil
}

// stripComment cuts a '#' comment, but not one inside a quoted string
// (a string default or constant may hold '#').
func stripComment(line string) string {
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

// parseLine parses "TYPE NAME", "TYPE NAME DEFAULT" or "TYPE NAME=VALUE".
func (d *Definition) parseLine(clean string) (string, error) {
	typ, rest, ok := strings.Cut(clean, " ")
	if i := strings.IndexByte(clean, '\t'); i >= 0 && (!ok || i < len(typ)) {
		typ, rest, ok = clean[:i], clean[i+1:], true
	}
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" {
		return "", defErrorf("%q: want TYPE NAME", clean)
	}
	end := 0
	for end < len(rest) && (rest[end] == '_' || rest[end] >= '0' && rest[end] <= '9' ||
		rest[end]|0x20 >= 'a' && rest[end]|0x20 <= 'z') {
		end++
	}
	name, tail := rest[:end], strings.TrimSpace(rest[end:])
	if !validName(name) {
		return "", defErrorf("%q: bad name %q", clean, rest)
	}
	if val, isConst := strings.CutPrefix(tail, "="); isConst {
		c, err := parseConstant(typ, name, strings.TrimSpace(val))
		d.Constants = append(d.Constants, c)
		return name, err
	}
	f, err := parseField(splitPkg(d.Type), typ, name)
	if err != nil {
		return "", err
	}
	f.Default = tail
	d.Fields = append(d.Fields, f)
	return name, nil
}

func parseConstant(typ, name, val string) (msg.Constant, error) {
	k, ok := builtins[typ]
	if !ok || val == "" {
		return msg.Constant{}, defErrorf("constant %s: type %q must be a builtin and the value set", name, typ)
	}
	if k == KindString || k == KindWString {
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		} else if len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'' {
			val = val[1 : len(val)-1]
		}
		return msg.Constant{Type: typ, Name: name, Value: val}, nil
	}
	if err := checkNumber(k, val); err != nil {
		return msg.Constant{}, defErrorf("constant %s: %v", name, err)
	}
	return msg.Constant{Type: typ, Name: name, Value: val}, nil
}

func checkNumber(k Kind, val string) error {
	var err error
	switch k {
	case KindBool:
		switch strings.ToLower(val) {
		case "true", "false", "0", "1":
		default:
			err = strconv.ErrSyntax
		}
	case KindFloat32, KindFloat64:
		_, err = strconv.ParseFloat(val, 64)
	case KindInt8, KindInt16, KindInt32, KindInt64:
		_, err = strconv.ParseInt(val, 0, k.size()*8)
	default:
		_, err = strconv.ParseUint(val, 0, k.size()*8)
	}
	if err != nil {
		return defErrorf("value %q is not a valid %v", val, k)
	}
	return nil
}

// parseField parses a field's type: BASE, BASE[N], BASE[], BASE[<=N],
// with string<=N / wstring<=N as bounded strings.
func parseField(pkg, raw, name string) (Field, error) {
	f := Field{Name: name}
	base := raw
	if i := strings.IndexByte(raw, '['); i >= 0 {
		if !strings.HasSuffix(raw, "]") {
			return Field{}, defErrorf("field %s: bad array type %q", name, raw)
		}
		base = raw[:i]
		n := raw[i+1 : len(raw)-1]
		f.Array = ArrayUnbounded
		if n != "" {
			f.Array = ArrayFixed
			if b, ok := strings.CutPrefix(n, "<="); ok {
				f.Array, n = ArrayBounded, b
			}
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 || v > maxFixedArray || (v == 0 && f.Array == ArrayBounded) {
				return Field{}, defErrorf("field %s: bad array length in %q", name, raw)
			}
			f.Len = v
		}
	}
	if b, bound, ok := strings.Cut(base, "<="); ok {
		v, err := strconv.Atoi(bound)
		if (b != "string" && b != "wstring") || err != nil || v <= 0 || v > maxFixedArray {
			return Field{}, defErrorf("field %s: bad bounded string %q", name, raw)
		}
		base, f.StringBound = b, v
	}
	if k, ok := builtins[base]; ok {
		f.Type, f.Kind = base, k
		return f, nil
	}
	f.Kind = KindMessage
	switch {
	case base == "time":
		f.Type = "builtin_interfaces/msg/Time"
	case base == "duration":
		f.Type = "builtin_interfaces/msg/Duration"
	case base == "Header":
		f.Type = TypeHeader
	case strings.Contains(base, "/"):
		t, ok := Normalize(base)
		if !ok {
			return Field{}, defErrorf("field %s: bad type %q", name, base)
		}
		f.Type = t
	default:
		if !validName(base) {
			return Field{}, defErrorf("field %s: bad type %q", name, base)
		}
		f.Type = pkg + "/msg/" + base
	}
	return f, nil
}
