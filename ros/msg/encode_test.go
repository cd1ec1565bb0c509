package msg

import (
	"slices"
	"testing"
	"time"
)

// TestWrittenDefinitionsAreROSs: the definitions edged writes are the
// ROS types' own (ROS's md5sums).
func TestWrittenDefinitionsAreROSs(t *testing.T) {
	for _, tc := range []struct{ typ, def, md5 string }{
		{TypeCompressedImage, DefCompressedImage, MD5CompressedImage},
		{TypeJointState, DefJointState, MD5JointState},
	} {
		d, err := Parse(tc.typ, tc.def)
		if err != nil {
			t.Fatal(err)
		}
		if d.MD5() != tc.md5 {
			t.Errorf("%s: md5 %s, ROS's %s", tc.typ, d.MD5(), tc.md5)
		}
	}
}

// TestAppendDecodes: what the encoders write, the typed decoders read.
func TestAppendDecodes(t *testing.T) {
	stamp := time.Unix(1700000000, 250)
	var img CompressedImage
	if err := DecodeCompressedImage(AppendCompressedImage(nil, 7, stamp, "jpeg", []byte{1, 2, 3}), &img); err != nil {
		t.Fatal(err)
	}
	if img.Format != "jpeg" || !slices.Equal(img.Data, []byte{1, 2, 3}) || img.Header.Seq != 7 || img.Header.Stamp.NSec != 250 {
		t.Errorf("CompressedImage read back as %+v", img)
	}
	var js JointState
	b := AppendJointState(nil, 1, stamp, []string{"a", "b"}, []float64{1, 2}, []float64{3, 4}, nil)
	if err := DecodeJointState(b, &js); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(js.Name, []string{"a", "b"}) || !slices.Equal(js.Position, []float64{1, 2}) || len(js.Effort) != 0 {
		t.Errorf("JointState read back as %+v", js)
	}
}
