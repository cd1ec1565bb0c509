package msg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Seed corpora live in testdata/fuzz/<Target>/; regenerate them with
// EDGED_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus ./ros/msg/.

func seedDefinitions(t testing.TB) [][2]string {
	var out [][2]string
	for _, r := range loadDefs(t) {
		out = append(out, [2]string{r.Type, r.Definition})
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, d := range seedDefinitions(f) {
		f.Add(d[0], d[1])
	}
	f.Fuzz(func(t *testing.T, typ, text string) {
		d, err := Parse(typ, text)
		if err != nil {
			return
		}
		if len(d.MD5()) != 32 {
			t.Fatalf("md5 %q", d.MD5())
		}
		// a parsed definition decodes anything without panicking
		_, _ = d.Decode([]byte(text))
	})
}

// FuzzDecode decodes arbitrary bytes with the definition selected by the
// first input (an index into the test definitions) or parsed from text.
func FuzzDecode(f *testing.F) {
	defs := seedDefinitions(f)
	parsed := make([]*Definition, len(defs))
	for i, d := range defs {
		p, err := Parse(d[0], d[1])
		if err != nil {
			f.Fatal(err)
		}
		parsed[i] = p
	}
	for i, r := range loadReal(f) {
		for j := range r.Messages {
			f.Add(uint8(len(defs)-len(loadReal(f))+i), r.message(f, j))
		}
	}
	f.Add(uint8(0), []byte{3, 0, 0, 0, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		d := parsed[int(which)%len(parsed)]
		v, err := d.Decode(data)
		if err != nil {
			return
		}
		if _, err := v.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzTyped checks a typed decoder against the dynamic decoder of typ's
// definition (testdata/defs.json). decode returns the typed values by
// the dynamic path of each ("PATH.length" for an array's length).
func fuzzTyped(f *testing.F, typ string, seeds [][]byte, decode func([]byte) (map[string]any, error)) {
	def := definitionOf(f, typ)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, terr := decode(data)
		v, derr := def.Decode(data)
		if errors.Is(derr, ErrBudget) {
			return
		}
		if (terr == nil) != (derr == nil) {
			t.Fatalf("%s: typed decoder says %v, dynamic decoder says %v", typ, terr, derr)
		}
		if terr != nil {
			return
		}
		for path, w := range want {
			got, err := dynamicAt(v, path)
			if err != nil {
				t.Fatalf("%s %s: %v", typ, path, err)
			}
			if fmt.Sprintf("%v", got) != fmt.Sprintf("%v", w) {
				t.Fatalf("%s %s: dynamic %v, typed %v", typ, path, got, w)
			}
		}
	})
}

// dynamicAt is v.Get(path), or for "PATH.length" the array's length,
// for "PATH.nonzero" whether the uint8 there is not 0 (a typed bool).
func dynamicAt(v *Value, path string) (any, error) {
	if arr, ok := strings.CutSuffix(path, ".length"); ok {
		a, err := v.Get(arr)
		if err != nil {
			return nil, err
		}
		return reflect.ValueOf(a).Len(), nil
	}
	if field, ok := strings.CutSuffix(path, ".nonzero"); ok {
		b, err := v.Get(field)
		if err != nil {
			return nil, err
		}
		u, ok := b.(uint8)
		if !ok {
			return nil, fmt.Errorf("%s is a %T, not a uint8", field, b)
		}
		return u != 0, nil
	}
	return v.Get(path)
}

func definitionOf(t testing.TB, typ string) *Definition {
	for _, r := range loadDefs(t) {
		if r.Type == typ {
			d, err := Parse(r.Type, r.Definition)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no definition of %s in testdata/defs.json", typ)
	return nil
}

// headerPaths are a std_msgs/Header's values under prefix ("" for a
// Header message itself).
func headerPaths(prefix string, h Header) map[string]any {
	if prefix != "" {
		prefix += "."
	}
	return map[string]any{prefix + "seq": h.Seq, prefix + "stamp": h.Stamp, prefix + "frame_id": h.FrameID}
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func realMessages(f *testing.F, typ string) [][]byte {
	var out [][]byte
	for _, r := range loadReal(f) {
		if r.Type == typ {
			for i := range r.Messages {
				out = append(out, r.message(f, i))
			}
		}
	}
	return out
}

// The typed decoders are fast paths of the dynamic decoder for a few
// types, so the dynamic decoder is their reference: on the same bytes
// both must fail, or both succeed with the same values (each typed field
// against the dynamic value at its path). The one allowed difference is
// the dynamic decoder's memory budget (ErrBudget), which the typed ones,
// materializing less, do not need.
func FuzzDecodeImage(f *testing.F) {
	fuzzTyped(f, TypeImage, [][]byte{imageMsg(2, 2, "rgb8")}, func(b []byte) (map[string]any, error) {
		var x Image
		err := DecodeImage(b, &x)
		_ = x.CheckLayout()
		return merge(headerPaths("header", x.Header), map[string]any{"height": x.Height, "width": x.Width,
			"encoding": x.Encoding, "is_bigendian.nonzero": x.IsBigEndian, "step": x.Step, "data": x.Data}), err
	})
}

func FuzzDecodeCompressedImage(f *testing.F) {
	seed := (&enc{}).header(1, 2, 3, "f").str("jpeg").u32(2).u8(0xff).u8(0xd8).b
	fuzzTyped(f, TypeCompressedImage, [][]byte{seed}, func(b []byte) (map[string]any, error) {
		var x CompressedImage
		err := DecodeCompressedImage(b, &x)
		return merge(headerPaths("header", x.Header), map[string]any{"format": x.Format, "data": x.Data}), err
	})
}

func FuzzDecodeJointState(f *testing.F) {
	fuzzTyped(f, TypeJointState, realMessages(f, TypeJointState), func(b []byte) (map[string]any, error) {
		var x JointState
		err := DecodeJointState(b, &x)
		return merge(headerPaths("header", x.Header), map[string]any{"name": x.Name, "position": x.Position,
			"velocity": x.Velocity, "effort": x.Effort}), err
	})
}

func FuzzDecodeString(f *testing.F) {
	fuzzTyped(f, TypeString, realMessages(f, TypeString), func(b []byte) (map[string]any, error) {
		var x String
		err := DecodeString(b, &x)
		return map[string]any{"data": x.Data}, err
	})
}

func FuzzDecodeClock(f *testing.F) {
	fuzzTyped(f, TypeClock, [][]byte{(&enc{}).time(1, 2).b}, func(b []byte) (map[string]any, error) {
		var x Clock
		err := DecodeClock(b, &x)
		return map[string]any{"clock": x.Clock}, err
	})
}

func FuzzDecodeSmachContainerStatus(f *testing.F) {
	fuzzTyped(f, TypeSmachContainerStatus, realMessages(f, TypeSmachContainerStatus), func(b []byte) (map[string]any, error) {
		var x SmachContainerStatus
		err := DecodeSmachContainerStatus(b, &x)
		return merge(headerPaths("header", x.Header), map[string]any{"path": x.Path, "initial_states": x.InitialStates,
			"active_states": x.ActiveStates, "local_data": x.LocalData, "info": x.Info}), err
	})
}

func FuzzDecodeGoalStatusArray(f *testing.F) {
	fuzzTyped(f, TypeGoalStatusArray, [][]byte{goalStatusArrayMsg()}, func(b []byte) (map[string]any, error) {
		var x GoalStatusArray
		err := DecodeGoalStatusArray(b, &x)
		want := headerPaths("header", x.Header)
		want["status_list.length"] = len(x.StatusList)
		for i, g := range x.StatusList {
			p := fmt.Sprintf("status_list[%d].", i)
			want[p+"goal_id.stamp"], want[p+"goal_id.id"] = g.GoalID.Stamp, g.GoalID.ID
			want[p+"status"], want[p+"text"] = g.Status, g.Text
		}
		return want, err
	})
}

func FuzzDecodeHeader(f *testing.F) {
	fuzzTyped(f, TypeHeader, [][]byte{(&enc{}).header(1, 2, 3, "base").b}, func(b []byte) (map[string]any, error) {
		var x Header
		err := DecodeHeader(b, &x)
		return headerPaths("", x), err
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"status.phase", "status_list[0].text", "a[-1]", "a..b", "[", "x[99999999999999999999]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) { _ = ParsePath(p) })
}

// TestWriteFuzzCorpus writes the seed corpora as files in the go fuzz
// format, so `go test -fuzz` starts from real inputs.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("EDGED_WRITE_CORPUS") == "" {
		t.Skip("set EDGED_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	write := func(target, name string, vals ...string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "go test fuzz v1\n" + strings.Join(vals, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	q := func(s string) string { return "string(" + quoteGo(s) + ")" }
	bq := func(b []byte) string { return "[]byte(" + quoteGo(string(b)) + ")" }
	defs := seedDefinitions(t)
	for i, d := range defs {
		write("FuzzParse", strings.ReplaceAll(d[0], "/", "_")+"_"+itoa(i), q(d[0]), q(d[1]))
	}
	real := loadReal(t)
	for i, r := range real {
		for j := range r.Messages {
			name := strings.ReplaceAll(r.Type, "/", "_") + "_" + itoa(i) + "_" + itoa(j)
			write("FuzzDecode", name, "byte("+itoa(len(defs)-len(real)+i)+")", bq(r.message(t, j)))
		}
	}
	write("FuzzDecode", "everything", "byte("+itoa(everythingIndex(defs))+")", bq(everything()))
	typed := map[string][][]byte{
		"FuzzDecodeImage":                {imageMsg(2, 2, "rgb8"), imageMsg(1, 1, "mono8")[:20]},
		"FuzzDecodeCompressedImage":      {(&enc{}).header(1, 2, 3, "f").str("jpeg").u32(2).u8(0xff).u8(0xd8).b},
		"FuzzDecodeClock":                {(&enc{}).time(1, 2).b},
		"FuzzDecodeGoalStatusArray":      {goalStatusArrayMsg()},
		"FuzzDecodeHeader":               {(&enc{}).header(1, 2, 3, "base").b},
		"FuzzDecodeJointState":           nil,
		"FuzzDecodeString":               nil,
		"FuzzDecodeSmachContainerStatus": nil,
	}
	for _, r := range real {
		switch r.Type {
		case TypeJointState:
			typed["FuzzDecodeJointState"] = append(typed["FuzzDecodeJointState"], r.message(t, 0))
		case TypeString:
			typed["FuzzDecodeString"] = append(typed["FuzzDecodeString"], r.message(t, 0))
		case TypeSmachContainerStatus:
			typed["FuzzDecodeSmachContainerStatus"] = append(typed["FuzzDecodeSmachContainerStatus"], r.message(t, 0))
		}
	}
	for target, seeds := range typed {
		for i, s := range seeds {
			write(target, "seed"+itoa(i), bq(s))
		}
	}
	for i, p := range []string{"status.phase", "status_list[0].text", "position[-1]"} {
		write("FuzzParsePath", "seed"+itoa(i), q(p))
	}
}

func everythingIndex(defs [][2]string) int {
	for i, d := range defs {
		if d[0] == "edged_test/Everything" {
			return i
		}
	}
	return 0
}
