package msg

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type defRecord struct {
	Type       string `json:"type"`
	MD5Sum     string `json:"md5sum"`
	Definition string `json:"definition"`
}

// loadDefs returns the definitions from defs.py and from the real bags
// (extract.py), with the md5sum ROS computed for each.
func loadDefs(t testing.TB) []defRecord {
	t.Helper()
	var defs []defRecord
	raw, err := os.ReadFile("testdata/defs.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	for _, r := range loadReal(t) {
		defs = append(defs, defRecord{Type: r.Type, MD5Sum: r.MD5Sum, Definition: r.Definition})
	}
	return defs
}

func TestMD5MatchesROS(t *testing.T) {
	for _, r := range loadDefs(t) {
		d, err := Parse(r.Type, r.Definition)
		if err != nil {
			t.Errorf("%s: %v", r.Type, err)
			continue
		}
		if d.MD5() != r.MD5Sum {
			t.Errorf("%s: md5 %s, ROS says %s", r.Type, d.MD5(), r.MD5Sum)
		}
	}
}

func TestMD5KnownTypes(t *testing.T) {
	want := map[string]string{
		TypeImage: MD5Image, TypeCompressedImage: MD5CompressedImage, TypeJointState: MD5JointState,
		TypeString: MD5String, TypeClock: MD5Clock, TypeSmachContainerStatus: MD5SmachContainerStatus,
		TypeGoalStatusArray: MD5GoalStatusArray, TypeHeader: MD5Header,
	}
	seen := map[string]bool{}
	for _, r := range loadDefs(t) {
		md5, ok := want[r.Type]
		if !ok {
			continue
		}
		d, err := Parse(r.Type, r.Definition)
		if err != nil {
			t.Fatal(err)
		}
		if d.MD5() != md5 {
			t.Errorf("%s: md5 %s, want %s", r.Type, d.MD5(), md5)
		}
		seen[r.Type] = true
	}
	for typ := range want {
		if !seen[typ] {
			t.Errorf("no definition of %s in testdata", typ)
		}
	}
}

func findDef(t testing.TB, typ string) *Definition {
	t.Helper()
	for _, r := range loadDefs(t) {
		if r.Type == typ {
			d, err := Parse(r.Type, r.Definition)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no definition of %s in testdata", typ)
	return nil
}

func TestParseEverything(t *testing.T) {
	d := findDef(t, "edged_test/Everything")
	consts := map[string]string{}
	for _, c := range d.Constants {
		consts[c.Name] = c.Type + " " + c.Value
	}
	wantConsts := map[string]string{
		"GREETING":  "string hello # not a comment = still the value",
		"EMPTY_ISH": "string spaced", "ANSWER": "int32 42", "FLAG": "uint8 1",
		"PI": "float64 3.14159", "YES": "bool True",
	}
	for k, v := range wantConsts {
		if consts[k] != v {
			t.Errorf("constant %s = %q, want %q", k, consts[k], v)
		}
	}
	checks := []struct {
		name, typ string
		kind      Kind
		array     bool
		n         int
	}{
		{"header", "std_msgs/Header", KindMessage, false, -1},
		{"by", "byte", KindInt8, false, -1},
		{"ch", "char", KindUint8, false, -1},
		{"blob", "uint8", KindUint8, true, -1},
		{"tag", "char", KindUint8, true, 4},
		{"vec", "float32", KindFloat32, true, 3},
		{"times", "time", KindTime, true, 2},
		{"inner", "edged_test/Inner", KindMessage, false, -1},
		{"inners", "edged_test/Inner", KindMessage, true, -1},
		{"pair", "edged_test/Inner", KindMessage, true, 2},
		{"label", "std_msgs/String", KindMessage, false, -1},
	}
	for _, c := range checks {
		i := d.FieldIndex(c.name)
		if i < 0 {
			t.Errorf("no field %s", c.name)
			continue
		}
		f := d.Fields[i]
		if f.Type != c.typ || f.Kind != c.kind || f.IsArray != c.array || f.ArrayLen != c.n {
			t.Errorf("field %s = %+v, want type %s kind %v array %v len %d", c.name, f, c.typ, c.kind, c.array, c.n)
		}
	}
	leaf := d.Fields[d.FieldIndex("inner")].Msg.Fields[2].Msg
	if leaf.Type != "edged_test/Leaf" {
		t.Errorf("Inner's unqualified Leaf resolved to %s", leaf.Type)
	}
	if !d.HasHeader() {
		t.Error("HasHeader false")
	}
}

func TestParseErrors(t *testing.T) {
	sep := strings.Repeat("=", 80) + "\n"
	cases := map[string]string{
		"missing nested":   "Foo foo\n",
		"bad field":        "int32\n",
		"three words":      "int32 a b\n",
		"bad name":         "int32 1abc\n",
		"bad array":        "int32[x] a\n",
		"negative array":   "int32[-1] a\n",
		"open array":       "int32[ a\n",
		"duplicate field":  "int32 a\nint32 a\n",
		"time constant":    "time T=1\n",
		"bad int constant": "int8 C=300\n",
		"no const name":    "int8 =3\n",
		"cycle":            "Loop l\n" + sep + "MSG: p/Loop\nLoop again\n",
		"junk after sep":   "int32 a\n" + sep + "not a block\n",
		"dup block":        "A a\n" + sep + "MSG: p/A\nint8 x\n" + sep + "MSG: p/A\nint8 y\n",
		"bad block name":   "int32 a\n" + sep + "MSG: nopackage\n",
	}
	for name, text := range cases {
		_, err := Parse("p/T", text)
		if !errors.Is(err, ErrDefinition) {
			t.Errorf("%s: err %v, want ErrDefinition", name, err)
		}
	}
	if _, err := Parse("NoPackage", "int32 a\n"); err == nil {
		t.Error("type without package accepted")
	}
	if _, err := Parse("p/T", strings.Repeat("#", MaxDefinitionBytes+1)); err == nil {
		t.Error("huge definition accepted")
	}
}

// TestParseRepeatedBlock: a nested block repeated with the same text (as
// rosbag2 writes them) counts once; before the one rule of rosmsg, ROS1
// refused it ("defined twice") while ROS 2 took it. Other text is still
// refused (TestParseErrors' "dup block").
func TestParseRepeatedBlock(t *testing.T) {
	sep := strings.Repeat("=", 80) + "\n"
	once, err := Parse("p/T", "Leaf a\nLeaf b\n"+sep+"MSG: p/Leaf\nint32 x\n")
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Parse("p/T", "Leaf a\nLeaf b\n"+sep+"MSG: p/Leaf\nint32 x\n"+sep+"MSG: p/Leaf\nint32 x")
	if err != nil {
		t.Fatalf("a block repeated with the same text: %v", err)
	}
	if twice.MD5() != once.MD5() || twice.Fields[1].Msg != twice.Fields[0].Msg {
		t.Errorf("md5 %s, want %s; the two fields' types differ: %p %p", twice.MD5(), once.MD5(), twice.Fields[0].Msg, twice.Fields[1].Msg)
	}
}

func TestParseRoslibHeader(t *testing.T) {
	sep := strings.Repeat("=", 80) + "\n"
	text := "Header header\nint32 x\n" + sep + "MSG: roslib/Header\nuint32 seq\ntime stamp\nstring frame_id\n"
	d, err := Parse("p/T", text)
	if err != nil {
		t.Fatal(err)
	}
	if d.Fields[0].Msg.MD5() != MD5Header {
		t.Errorf("roslib/Header md5 %s", d.Fields[0].Msg.MD5())
	}
}

func TestParseEmptyAndCRLF(t *testing.T) {
	d, err := Parse("std_msgs/Empty", "")
	if err != nil || len(d.Fields) != 0 || d.MD5() != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Fatalf("empty: %v %+v", err, d)
	}
	d, err = Parse("std_msgs/String", "string data\r\n")
	if err != nil || d.MD5() != MD5String {
		t.Fatalf("CRLF: %v", err)
	}
}

// TestParseWhiteSpace: any white space separates a field's type from its
// name, as genmsg's split() does (rosmsg first split on space and tab
// only, so "string\rdata" failed).
func TestParseWhiteSpace(t *testing.T) {
	for _, sep := range []string{" ", "\t", "\r", "\v", "\f", "\u00a0", " \t "} {
		d, err := Parse("std_msgs/String", "string"+sep+"data\n")
		if err != nil || d.MD5() != MD5String {
			t.Errorf("separator %q: %v", sep, err)
		}
	}
}
