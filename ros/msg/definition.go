package msg

import "github.com/edged-robotics/edged/rosmsg"

// Kind is the wire type of a field (or of an array's elements): rosmsg's,
// of which ROS1 uses the kinds below.
type Kind = rosmsg.Kind

// The ROS1 builtin kinds, and KindMessage for a nested message type.
const (
	KindInvalid  = rosmsg.KindInvalid
	KindBool     = rosmsg.KindBool
	KindInt8     = rosmsg.KindInt8
	KindUint8    = rosmsg.KindUint8
	KindInt16    = rosmsg.KindInt16
	KindUint16   = rosmsg.KindUint16
	KindInt32    = rosmsg.KindInt32
	KindUint32   = rosmsg.KindUint32
	KindInt64    = rosmsg.KindInt64
	KindUint64   = rosmsg.KindUint64
	KindFloat32  = rosmsg.KindFloat32
	KindFloat64  = rosmsg.KindFloat64
	KindString   = rosmsg.KindString
	KindTime     = rosmsg.KindTime
	KindDuration = rosmsg.KindDuration
	KindMessage  = rosmsg.KindMessage
)

// Limits of the parser (rosmsg's).
const (
	// MaxDefinitionBytes caps the text Parse accepts.
	MaxDefinitionBytes = rosmsg.MaxDefinitionBytes
	// MaxNesting caps how deep message types may nest.
	MaxNesting = rosmsg.MaxNesting
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
type Constant = rosmsg.Constant

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
var ErrDefinition = rosmsg.ErrROS1Definition

// Parse parses the full text of a message definition for typeName (e.g.
// "sensor_msgs/Image"), as publishers send it in the TCPROS header
// message_definition field: the main type's text, then for every nested
// type a line of '=' and a block that starts with "MSG: package/Name"
// (a block repeated with the same text counts once; see
// rosmsg.Dialect.SplitBlocks). Every field type must resolve to a builtin
// or one of those blocks.
func Parse(typeName, text string) (*Definition, error) {
	ros1 := rosmsg.ROS1
	if len(text) > MaxDefinitionBytes {
		return nil, ros1.Errorf("%d bytes, more than the %d allowed", len(text), MaxDefinitionBytes)
	}
	if _, ok := ros1.TypeName(typeName); !ok {
		return nil, ros1.Errorf("type %q: want package/Name", typeName)
	}
	main, blocks, err := ros1.SplitBlocks(text)
	if err != nil {
		return nil, err
	}
	blocks[typeName] = main
	return rosmsg.Resolve(ros1, typeName, blockText(blocks), build)
}

// blockText looks a type's text up among the blocks of one definition.
func blockText(blocks map[string]string) func(string) (string, error) {
	return func(typeName string) (string, error) {
		text, ok := blocks[typeName]
		if !ok && typeName == "std_msgs/Header" {
			// very old bags and publishers call it roslib/Header
			text, ok = blocks["roslib/Header"]
		}
		if !ok {
			return "", rosmsg.ROS1.Errorf("no MSG: block for %s", typeName)
		}
		return text, nil
	}
}

// build makes the Definition of a parsed type whose nested types are
// resolved, with its md5 and size bounds.
func build(p *rosmsg.Parsed, nested []*Definition) (*Definition, error) {
	d := &Definition{Type: p.Type, Text: p.Text, Constants: p.Constants, Fields: make([]Field, len(p.Fields))}
	for i, f := range p.Fields {
		d.Fields[i] = Field{Name: f.Name, Type: f.Type, Kind: f.Kind, IsArray: f.IsArray(), ArrayLen: -1,
			Msg: nested[i], raw: f.Raw}
		if f.Array == rosmsg.ArrayFixed {
			d.Fields[i].ArrayLen = f.Len
		}
	}
	d.md5 = computeMD5(d)
	d.minSize = rosmsg.MinSize(p.Fields, func(i int) int { return nested[i].minSize })
	d.minMem = minMem(d)
	return d, nil
}

// minMem is the least a decoded Value of d allocates: its struct, its
// Fields, and nested messages and fixed arrays of them. It lets an array
// of n messages be refused before its n elements are allocated.
func minMem(d *Definition) int {
	n := rosmsg.ValueBytes + rosmsg.AnyBytes*len(d.Fields)
	for _, f := range d.Fields {
		switch {
		case f.Kind != KindMessage:
		case !f.IsArray:
			n += f.Msg.minMem
		case f.ArrayLen > 0:
			n += rosmsg.SliceBytes + f.ArrayLen*(rosmsg.PtrBytes+f.Msg.minMem)
		default:
			n += rosmsg.SliceBytes
		}
		if n > rosmsg.MaxMem {
			return rosmsg.MaxMem // no overflow; such a message is refused anyway
		}
	}
	return n
}
