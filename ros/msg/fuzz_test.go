package msg

import (
	"os"
	"path/filepath"
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

func fuzzTyped(f *testing.F, seeds [][]byte, decode func([]byte) error) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { _ = decode(data) })
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

func FuzzDecodeImage(f *testing.F) {
	fuzzTyped(f, [][]byte{imageMsg(2, 2, "rgb8")}, func(b []byte) error {
		var x Image
		if err := DecodeImage(b, &x); err != nil {
			return err
		}
		_ = x.CheckLayout()
		return nil
	})
}

func FuzzDecodeCompressedImage(f *testing.F) {
	seed := (&enc{}).header(1, 2, 3, "f").str("jpeg").u32(2).u8(0xff).u8(0xd8).b
	fuzzTyped(f, [][]byte{seed}, func(b []byte) error { var x CompressedImage; return DecodeCompressedImage(b, &x) })
}

func FuzzDecodeJointState(f *testing.F) {
	fuzzTyped(f, realMessages(f, TypeJointState), func(b []byte) error { var x JointState; return DecodeJointState(b, &x) })
}

func FuzzDecodeString(f *testing.F) {
	fuzzTyped(f, realMessages(f, TypeString), func(b []byte) error { var x String; return DecodeString(b, &x) })
}

func FuzzDecodeClock(f *testing.F) {
	fuzzTyped(f, [][]byte{(&enc{}).time(1, 2).b}, func(b []byte) error { var x Clock; return DecodeClock(b, &x) })
}

func FuzzDecodeSmachContainerStatus(f *testing.F) {
	fuzzTyped(f, realMessages(f, TypeSmachContainerStatus), func(b []byte) error {
		var x SmachContainerStatus
		return DecodeSmachContainerStatus(b, &x)
	})
}

func FuzzDecodeGoalStatusArray(f *testing.F) {
	fuzzTyped(f, [][]byte{goalStatusArrayMsg()}, func(b []byte) error { var x GoalStatusArray; return DecodeGoalStatusArray(b, &x) })
}

func FuzzDecodeHeader(f *testing.F) {
	fuzzTyped(f, [][]byte{(&enc{}).header(1, 2, 3, "base").b}, func(b []byte) error { var x Header; return DecodeHeader(b, &x) })
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
