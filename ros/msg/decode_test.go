package msg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

// enc builds ROS-serialized messages for tests.
type enc struct{ b []byte }

func (e *enc) u8(v uint8) *enc   { e.b = append(e.b, v); return e }
func (e *enc) u16(v uint16) *enc { e.b = binary.LittleEndian.AppendUint16(e.b, v); return e }
func (e *enc) u32(v uint32) *enc { e.b = binary.LittleEndian.AppendUint32(e.b, v); return e }
func (e *enc) u64(v uint64) *enc { e.b = binary.LittleEndian.AppendUint64(e.b, v); return e }
func (e *enc) f32(v float32) *enc {
	return e.u32(math.Float32bits(v))
}
func (e *enc) f64(v float64) *enc { return e.u64(math.Float64bits(v)) }
func (e *enc) str(s string) *enc  { e.u32(uint32(len(s))); e.b = append(e.b, s...); return e }
func (e *enc) time(s, ns uint32) *enc {
	return e.u32(s).u32(ns)
}
func (e *enc) header(seq, s, ns uint32, frame string) *enc {
	return e.u32(seq).time(s, ns).str(frame)
}
func (e *enc) strs(ss ...string) *enc {
	e.u32(uint32(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
	return e
}
func (e *enc) f64s(fs ...float64) *enc {
	e.u32(uint32(len(fs)))
	for _, f := range fs {
		e.f64(f)
	}
	return e
}

func imageMsg(w, h int, encoding string) []byte {
	e := (&enc{}).header(7, 100, 200, "cam").u32(uint32(h)).u32(uint32(w)).str(encoding).u8(0).u32(uint32(3 * w))
	e.u32(uint32(3 * w * h))
	for i := 0; i < 3*w*h; i++ {
		e.b = append(e.b, byte(i))
	}
	return e.b
}

func TestDecodeImage(t *testing.T) {
	b := imageMsg(4, 2, "rgb8")
	var img Image
	if err := DecodeImage(b, &img); err != nil {
		t.Fatal(err)
	}
	if img.Width != 4 || img.Height != 2 || img.Encoding != "rgb8" || img.Step != 12 || len(img.Data) != 24 ||
		img.Header.Seq != 7 || img.Header.Stamp != (Time{Sec: 100, NSec: 200}) || img.Header.FrameID != "cam" || !img.CheckLayout() {
		t.Fatalf("decoded %+v", img)
	}
	if &img.Data[0] != &b[len(b)-24] {
		t.Error("Data does not alias the input")
	}
	if cap(img.Data) != len(img.Data) {
		t.Error("Data's capacity reaches past the field")
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := DecodeImage(b, &img); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("DecodeImage allocates %v times in steady state", allocs)
	}
	img.Height = 3
	if img.CheckLayout() {
		t.Error("CheckLayout accepts data shorter than height*step")
	}
}

func TestDecodeCompressedImageAndClock(t *testing.T) {
	b := (&enc{}).header(1, 5, 6, "f").str("rgb8; jpeg compressed bgr8").u32(3).u8(0xff).u8(0xd8).u8(0xff).b
	var c CompressedImage
	if err := DecodeCompressedImage(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Format != "rgb8; jpeg compressed bgr8" || !bytes.Equal(c.Data, []byte{0xff, 0xd8, 0xff}) || &c.Data[0] != &b[len(b)-3] {
		t.Fatalf("decoded %+v", c)
	}
	var clk Clock
	if err := DecodeClock((&enc{}).time(12, 34).b, &clk); err != nil || clk.Clock != (Time{Sec: 12, NSec: 34}) {
		t.Fatalf("clock %+v %v", clk, err)
	}
	var h Header
	if err := DecodeHeader((&enc{}).header(1, 2, 3, "x").b, &h); err != nil || h.FrameID != "x" {
		t.Fatalf("header %+v %v", h, err)
	}
}

func goalStatusArrayMsg() []byte {
	e := (&enc{}).header(3, 10, 0, "").u32(2)
	e.time(9, 1).str("goal-a").u8(GoalActive).str("moving")
	e.time(9, 2).str("goal-b").u8(GoalSucceeded).str("")
	return e.b
}

func TestDecodeGoalStatusArray(t *testing.T) {
	b := goalStatusArrayMsg()
	var a GoalStatusArray
	if err := DecodeGoalStatusArray(b, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.StatusList) != 2 || a.StatusList[0].GoalID.ID != "goal-a" || a.StatusList[0].Status != GoalActive ||
		a.StatusList[0].Text != "moving" || a.StatusList[1].GoalID.Stamp != (Time{Sec: 9, NSec: 2}) ||
		GoalStatusName(a.StatusList[1].Status) != "SUCCEEDED" || GoalStatusName(200) != "UNKNOWN" {
		t.Fatalf("decoded %+v", a)
	}
	v, err := findDef(t, TypeGoalStatusArray).Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"status_list[0].text": "moving", "status_list[-1].goal_id.id": "goal-b",
		"status_list[1].status": GoalSucceeded, "header.seq": uint32(3),
	} {
		got, err := v.Get(path)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", path, got, err, want)
		}
	}
}

func TestDecodeStringKeepsBytes(t *testing.T) {
	raw := "caf\xe9 \x80\xff"
	var s String
	if err := DecodeString((&enc{}).str(raw).b, &s); err != nil || s.Data != raw {
		t.Fatalf("%q %v", s.Data, err)
	}
	v, err := findDef(t, TypeString).Decode((&enc{}).str(raw).b)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(v)
	if string(j) != `{"data":{"base64":"Y2Fm6SCA/w=="}}` {
		t.Errorf("JSON of non-UTF-8 string: %s", j)
	}
}

func TestJointStateReusesNames(t *testing.T) {
	b := (&enc{}).header(1, 2, 3, "").strs("a", "b").f64s(1, 2).f64s().f64s(0.5, math.NaN()).b
	var js JointState
	if err := DecodeJointState(b, &js); err != nil {
		t.Fatal(err)
	}
	first := js.Name
	if len(js.Position) != 2 || js.Velocity != nil || len(js.Effort) != 2 || !math.IsNaN(js.Effort[1]) {
		t.Fatalf("decoded %+v", js)
	}
	if err := DecodeJointState(b, &js); err != nil {
		t.Fatal(err)
	}
	if &first[0] == &js.Name[0] {
		t.Error("Name slice reused: the caller may keep the previous one")
	}
	if !strings.EqualFold(first[1], js.Name[1]) {
		t.Error("names differ")
	}
}

// everything builds an edged_test/Everything message (see defs.py).
func everything() []byte {
	e := (&enc{}).header(1, 2, 3, "frame")
	e.u8(1).u8(0x80).u8(200).u8(0xff).u8('A')                // b i8 u8 by ch
	e.u16(0x8000).u16(65535).u32(0x80000000).u32(4000000000) // i16 u16 i32 u32
	e.u64(1 << 63).u64(1<<64 - 1).f32(1.5).f64(math.Inf(-1)) // i64 u64 f32 f64
	e.str("hello").time(5, 6).u32(uint32(0xffffffff)).u32(7) // s t d (-1 s)
	e.u32(100).b = append(e.b, make([]byte, 100)...)         // blob: summarized
	e.b = append(e.b, 't', 'a', 'g', '!')                    // tag char[4]
	e.u32(2).u8(0xff).u8(1)                                  // signed_blob
	e.f32(1).f32(2).f32(3)                                   // vec
	e.strs("x", "y")                                         // names
	e.time(1, 1).time(2, 2)                                  // times
	inner := func(name string) { e.str(name).u32(1).u32(42).f64(0.25).u32(1).u32(1).u32(2) }
	inner("in")  // inner
	e.u32(1)     // inners: 1
	inner("i0")  //
	inner("p0")  // pair[0]
	inner("p1")  // pair[1]
	e.str("lbl") // label
	return e.b
}

func TestDecodeEverything(t *testing.T) {
	d := findDef(t, "edged_test/Everything")
	v, err := d.Decode(everything())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"header.frame_id": "frame", "b": true, "i8": int8(-128), "u8": uint8(200), "by": int8(-1), "ch": uint8('A'),
		"i16": int16(-32768), "u16": uint16(65535), "i32": int32(math.MinInt32), "u32": uint32(4000000000),
		"i64": int64(math.MinInt64), "u64": uint64(math.MaxUint64), "f32": float32(1.5), "f64": math.Inf(-1),
		"s": "hello", "t": Time{Sec: 5, NSec: 6}, "d": Duration{Sec: -1, NSec: 7}, "tag[3]": uint8('!'), "signed_blob[0]": int8(-1),
		"vec[2]": float32(3), "names[1]": "y", "times[1]": Time{Sec: 2, NSec: 2}, "inner.values[0]": int32(42),
		"inner.leaf.x": 0.25, "inner.leaf.ds[0]": Duration{Sec: 1, NSec: 2}, "inners[0].name": "i0", "pair[1].name": "p1",
		"label.data": "lbl",
	}
	for path, w := range want {
		got, err := v.Get(path)
		if err != nil || got != w {
			t.Errorf("%s = %#v (%v), want %#v", path, got, err, w)
		}
	}
	if got := (Duration{Sec: -1, NSec: 7}).Duration(); got != -999999993 {
		t.Errorf("Duration() = %v", got)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"blob":{"bytes":100}`, `"tag":[116,97,103,33]`, `"f64":"-Inf"`,
		`"t":{"secs":5,"nsecs":6}`, `"pair":[{"name":"p0"`, `"label":{"data":"lbl"}`, `"u64":18446744073709551615`} {
		if !strings.Contains(string(j), frag) {
			t.Errorf("JSON lacks %s: %s", frag, j)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(j, &back); err != nil {
		t.Errorf("JSON does not parse: %v", err)
	}
}

func TestImageJSONSummary(t *testing.T) {
	v, err := findDef(t, TypeImage).Decode(imageMsg(640, 2, "bgr8"))
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(v)
	want := `{"header":{"seq":7,"stamp":{"secs":100,"nsecs":200},"frame_id":"cam"},"height":2,"width":640,` +
		`"encoding":"bgr8","is_bigendian":0,"step":1920,"data":{"bytes":3840}}`
	if string(j) != want {
		t.Errorf("got  %s\nwant %s", j, want)
	}
}

func TestGetErrors(t *testing.T) {
	v, err := findDef(t, "edged_test/Everything").Decode(everything())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"nope", "s.x", "names[2]", "names[-3]", "b[0]", "inner.nope", "pair[0].leaf.y"} {
		if _, err := v.Get(p); !errors.Is(err, ErrPath) {
			t.Errorf("Get(%q): %v, want ErrPath", p, err)
		}
	}
	for _, p := range []string{"", ".a", "a..b", "a[", "a[x]", "a.1"} {
		if ParsePath(p) == nil {
			t.Errorf("ParsePath(%q) accepted", p)
		}
	}
}

// TestTruncatedAndCorrupt: every prefix of a valid message fails with an
// error (never a panic), trailing bytes fail, and absurd lengths fail
// without allocating.
func TestTruncatedAndCorrupt(t *testing.T) {
	type decodeFn func([]byte) error
	everyDef := findDef(t, "edged_test/Everything")
	typed := map[string]struct {
		msg []byte
		fn  decodeFn
	}{
		"image":      {imageMsg(3, 2, "mono8"), func(b []byte) error { var x Image; return DecodeImage(b, &x) }},
		"goalstatus": {goalStatusArrayMsg(), func(b []byte) error { var x GoalStatusArray; return DecodeGoalStatusArray(b, &x) }},
		"everything": {everything(), func(b []byte) error {
			_, err := everyDef.Decode(b)
			return err
		}},
	}
	for name, c := range typed {
		if err := c.fn(c.msg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for n := 0; n < len(c.msg); n++ {
			if err := c.fn(c.msg[:n]); !errors.Is(err, ErrShort) {
				t.Fatalf("%s truncated to %d: %v", name, n, err)
			}
		}
		if err := c.fn(append(append([]byte(nil), c.msg...), 0)); !errors.Is(err, ErrTrailing) {
			t.Errorf("%s with a trailing byte: %v", name, err)
		}
	}
	huge := (&enc{}).header(0, 0, 0, "").u32(0xffffffff).b // 4 G names
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var js JointState
	if err := DecodeJointState(huge, &js); !errors.Is(err, ErrShort) {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("absurd length: %d bytes allocated", n)
	}
	v, err := findDef(t, TypeJointState).Decode(huge)
	if err == nil || v != nil {
		t.Error("dynamic decoder accepted an absurd array length")
	}
}
