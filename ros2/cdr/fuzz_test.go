package cdr

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/ros/msg"
)

func FuzzParse(f *testing.F) {
	f.Add("test_msgs/msg/T", "string<=10 s\nint32[<=5] a\nHeader h\nT2 t\n===\nMSG: test_msgs/T2\nuint8[16] u\n")
	f.Add("test_msgs/srv/S_Event", "int32 a\n---\nstring b\n")
	f.Fuzz(func(t *testing.T, typ, text string) {
		d, err := Parse(typ, text)
		if err != nil {
			return
		}
		_, _ = d.Decode([]byte{0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	})
}

// FuzzCompressedImage: the typed decoder and the dynamic one accept the
// same messages and agree on every field.
func FuzzCompressedImage(f *testing.F) {
	f.Add(compressedMsg([]byte{0xff, 0xd8, 0xff}))
	def, err := Parse(TypeCompressedImage, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ci msg.CompressedImage
		terr := DecodeCompressedImage(b, &ci)
		v, derr := def.Decode(b)
		if (terr == nil) != (derr == nil) {
			t.Fatalf("typed %v, dynamic %v", terr, derr)
		}
		if terr != nil {
			return
		}
		st, _ := Stamp(v)
		frame, _ := v.Get("header.frame_id")
		format, _ := v.Get("format")
		data, _ := v.Get("data")
		if st != ci.Header.Stamp || frame != ci.Header.FrameID || format != ci.Format || !bytes.Equal(data.([]byte), ci.Data) {
			t.Fatalf("typed %+v, dynamic %s", ci, v.AppendJSON(nil))
		}
	})
}

// FuzzJointState: typed and dynamic agree on joint states.
func FuzzJointState(f *testing.F) {
	f.Add(jointMsg())
	def, err := Parse(TypeJointState, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var js msg.JointState
		terr := DecodeJointState(b, &js)
		v, derr := def.Decode(b)
		if (terr == nil) != (derr == nil) {
			t.Fatalf("typed %v, dynamic %v", terr, derr)
		}
		if terr != nil {
			return
		}
		for path, want := range map[string]any{"name": js.Name, "position": js.Position, "velocity": js.Velocity, "effort": js.Effort} {
			got, _ := v.Get(path)
			if reflect.ValueOf(got).Len() != reflect.ValueOf(want).Len() {
				t.Fatalf("%s: typed %v, dynamic %v", path, want, got)
			}
		}
	})
}

func BenchmarkDecodeCompressedImage(b *testing.B) {
	m := compressedMsg(make([]byte, 60<<10))
	var ci msg.CompressedImage
	b.SetBytes(int64(len(m)))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeCompressedImage(m, &ci); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeImage(b *testing.B) {
	e := newEnc().header(1, 2, "cam").u32(480).u32(640).str("rgb8").u8(0).u32(1920).u32(480 * 1920)
	e.b = append(e.b, make([]byte, 480*1920)...)
	var img msg.Image
	b.SetBytes(int64(len(e.b)))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeImage(e.b, &img); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCameraDecodeAllocs: a camera stream decodes without allocating.
func TestCameraDecodeAllocs(t *testing.T) {
	m := compressedMsg(make([]byte, 1000))
	var ci msg.CompressedImage
	if n := testing.AllocsPerRun(100, func() { _ = DecodeCompressedImage(m, &ci) }); n != 0 {
		t.Errorf("%v allocations per CompressedImage", n)
	}
}
