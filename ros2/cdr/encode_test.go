package cdr

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/msg"
)

// TestAppendDecodes: what the encoders write, the typed decoders and
// the dynamic decoder of the written schema read.
func TestAppendDecodes(t *testing.T) {
	stamp := time.Unix(1700000000, 250)
	var img msg.CompressedImage
	if err := DecodeCompressedImage(AppendCompressedImage(nil, stamp, "cam", "jpeg", []byte{1, 2, 3}), &img); err != nil {
		t.Fatal(err)
	}
	if img.Format != "jpeg" || !slices.Equal(img.Data, []byte{1, 2, 3}) || img.Header.FrameID != "cam" ||
		!img.Header.Stamp.Time().Equal(stamp) {
		t.Errorf("CompressedImage read back as %+v", img)
	}
	var js msg.JointState
	b := AppendJointState(nil, stamp, "", []string{"a", "b"}, []float64{1, 2}, []float64{3, 4}, nil)
	if err := DecodeJointState(b, &js); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(js.Name, []string{"a", "b"}) || !slices.Equal(js.Velocity, []float64{3, 4}) || len(js.Effort) != 0 {
		t.Errorf("JointState read back as %+v", js)
	}
	for _, tc := range []struct {
		typ  string
		data []byte
	}{
		{TypeCompressedImage, AppendCompressedImage(nil, stamp, "", "png", []byte{9})},
		{TypeJointState, b},
	} {
		schema, err := Schema(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(tc.typ, schema)
		if err != nil {
			t.Fatalf("%s: the schema does not parse: %v\n%s", tc.typ, err, schema)
		}
		if _, err := d.Decode(tc.data); err != nil {
			t.Errorf("%s: %v", tc.typ, err)
		}
	}
}

// TestSchemaLayout: a ros2msg schema as rosbag2 writes it: the type's
// text, then each nested type once after 80 '=' and MSG: pkg/Name.
func TestSchemaLayout(t *testing.T) {
	s, err := Schema(TypeJointState)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(s, schemaSeparator)
	if len(blocks) != 3 || !strings.HasPrefix(blocks[1], "MSG: std_msgs/Header\n") ||
		!strings.HasPrefix(blocks[2], "MSG: builtin_interfaces/Time\n") || !strings.Contains(blocks[0], "float64[] effort") {
		t.Errorf("schema:\n%s", s)
	}
	if _, err := Schema("nope/msg/Missing"); err == nil {
		t.Error("a type without a definition gave a schema")
	}
	if got := AppendCompressedImage(nil, time.Unix(1<<40, 0), "", "", nil); got[4] != 0xff || got[7] != 0x7f {
		t.Errorf("a stamp past 2038 is not the largest int32 second: % x", got[:12])
	}
}
