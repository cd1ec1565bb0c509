package cdr

import (
	"errors"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/ros/msg"
)

func TestTyped(t *testing.T) {
	var ci msg.CompressedImage
	if err := DecodeCompressedImage(compressedMsg([]byte{0xff, 0xd8}), &ci); err != nil {
		t.Fatal(err)
	}
	if ci.Header.Stamp != (msg.Time{Sec: 5, NSec: 6}) || ci.Header.FrameID != "cam" || ci.Format != "jpeg" || len(ci.Data) != 2 {
		t.Errorf("%+v", ci)
	}
	var js msg.JointState
	if err := DecodeJointState(jointMsg(), &js); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(js.Name, []string{"a", "b"}) || !reflect.DeepEqual(js.Position, []float64{1.5, -2}) ||
		js.Velocity != nil || !reflect.DeepEqual(js.Effort, []float64{3}) {
		t.Errorf("%+v", js)
	}
	uuid := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	e := newEnc().u32(1)
	e.b = append(e.b, uuid...)
	b := e.u32(7).u32(8).u8(uint8(StatusExecuting)).b
	var ga msg.GoalStatusArray
	if err := DecodeGoalStatusArray(b, &ga); err != nil {
		t.Fatal(err)
	}
	if len(ga.StatusList) != 1 || ga.StatusList[0].GoalID.ID != "00010203-0405-0607-0809-0a0b0c0d0e0f" ||
		ga.StatusList[0].Status != msg.GoalActive || ga.StatusList[0].GoalID.Stamp != (msg.Time{Sec: 7, NSec: 8}) {
		t.Errorf("%+v", ga)
	}
}

func TestBadInput(t *testing.T) {
	good := compressedMsg([]byte{1, 2, 3})
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"XCDR2", append([]byte{0, 7, 0, 0}, good[4:]...), ErrEncapsulation},
		{"cut", good[:len(good)-1], ErrShort},
		{"huge length", newEnc().header(1, 1, "").u32(0xffffffff).b, ErrShort},
		{"trailing", append(append([]byte(nil), good...), 1, 2, 3, 4), ErrTrailing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ci msg.CompressedImage
			if err := DecodeCompressedImage(tc.b, &ci); !errors.Is(err, tc.want) {
				t.Errorf("typed: %v, want %v", err, tc.want)
			}
			d, _ := Parse(TypeCompressedImage, "")
			if _, err := d.Decode(tc.b); !errors.Is(err, tc.want) {
				t.Errorf("dynamic: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"bounded", "string<=10 s\nint32[<=5] a\nint32[3] f\nwstring w\n", true},
		{"defaults and constants", "int32 X=5\nstring S='a#b'  # comment\nint32 x 7\nstring s \"hi # there\"\nfloat64[] v [1.0, 2.0]\n", true},
		{"bad bound", "string<=0 s\n", false},
		{"bad constant", "int8 X=300\n", false},
		{"unknown type", "nope_msgs/Missing m\n", false},
		{"twice", "int32 a\nint32 a\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("test_msgs/msg/T", tc.text)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v", err)
			}
			if err == nil && tc.name == "bounded" && (d.Fields[0].StringBound != 10 || d.Fields[1].Array != ArrayBounded || d.Fields[2].Len != 3) {
				t.Errorf("%+v", d.Fields)
			}
			if err == nil && tc.name == "defaults and constants" && (d.Constants[1].Value != "a#b" || d.Fields[1].Default != `"hi # there"`) {
				t.Errorf("%+v %+v", d.Constants, d.Fields)
			}
		})
	}
	if _, err := Parse(TypeGoalStatusArray, ""); err != nil {
		t.Errorf("bundled action_msgs: %v", err)
	}
}
