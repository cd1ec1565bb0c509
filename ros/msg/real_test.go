package msg

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// realRecord is one file written by testdata/extract.py from the sample bags.
type realRecord struct {
	Bag        string `json:"bag"`
	Topic      string `json:"topic"`
	Type       string `json:"type"`
	MD5Sum     string `json:"md5sum"`
	Definition string `json:"definition"`
	Messages   []struct {
		Data   string                     `json:"data"`
		Expect map[string]json.RawMessage `json:"expect"`
	} `json:"messages"`
}

func loadReal(t testing.TB) []realRecord {
	t.Helper()
	files, err := filepath.Glob("testdata/real/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/real/*.json (regenerate with testdata/extract.py): %v", err)
	}
	var out []realRecord
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r realRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

func (r realRecord) message(t testing.TB, i int) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(r.Messages[i].Data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRealMessagesDynamic decodes the real messages from the sample bags
// with their own definitions and checks the fields genpy decoded.
func TestRealMessagesDynamic(t *testing.T) {
	n := 0
	for _, r := range loadReal(t) {
		d, err := Parse(r.Type, r.Definition)
		if err != nil {
			t.Fatalf("%s %s: %v", r.Bag, r.Topic, err)
		}
		for i, m := range r.Messages {
			v, err := d.Decode(r.message(t, i))
			if err != nil {
				t.Fatalf("%s %s #%d: %v", r.Bag, r.Topic, i, err)
			}
			for path, want := range m.Expect {
				got, err := v.Get(path)
				if err != nil {
					t.Errorf("%s %s: %v", r.Bag, r.Topic, err)
					continue
				}
				var w bytes.Buffer
				if err := json.Compact(&w, want); err != nil {
					t.Fatal(err)
				}
				if g := expectJSON(got); g != w.String() {
					t.Errorf("%s %s #%d %s = %s, genpy says %s", r.Bag, r.Topic, i, path, g, want)
				}
				n++
			}
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%s %s: JSON: %v", r.Bag, r.Topic, err)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d values checked", n)
	}
}

// expectJSON renders a decoded value the way extract.py wrote genpy's.
func expectJSON(v any) string {
	var x any
	switch v := v.(type) {
	case string:
		x = map[string]string{"hex": hex.EncodeToString([]byte(v))}
	case Time:
		x = map[string]uint32{"nsec": v.NSec, "sec": v.Sec}
	case float64:
		x = pyRepr(v)
	case float32:
		x = pyRepr(float64(v))
	case bool:
		x = v
	default:
		x = v
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// pyRepr formats a float like Python's repr.
func pyRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if e := strings.IndexByte(s, 'e'); e >= 0 {
		exp, _ := strconv.Atoi(s[e+1:])
		if exp >= -4 && exp < 16 {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		} else {
			// Python writes 1e-05 and 1e+16; Go writes 1e-05 and 1e+16 too
			return s
		}
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func TestRealMessagesTyped(t *testing.T) {
	for _, r := range loadReal(t) {
		for i := range r.Messages {
			b := r.message(t, i)
			d, _ := Parse(r.Type, r.Definition)
			v, err := d.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			switch r.Type {
			case TypeJointState:
				var js JointState
				if err := DecodeJointState(b, &js); err != nil {
					t.Fatalf("%s: %v", r.Topic, err)
				}
				checkSame(t, r.Topic, v, map[string]any{"header.seq": js.Header.Seq, "header.stamp": js.Header.Stamp,
					"name": js.Name, "position": js.Position, "velocity": js.Velocity, "effort": js.Effort})
			case TypeString:
				var s String
				if err := DecodeString(b, &s); err != nil {
					t.Fatal(err)
				}
				checkSame(t, r.Topic, v, map[string]any{"data": s.Data})
			case TypeSmachContainerStatus:
				var s SmachContainerStatus
				if err := DecodeSmachContainerStatus(b, &s); err != nil {
					t.Fatal(err)
				}
				checkSame(t, r.Topic, v, map[string]any{"header.frame_id": s.Header.FrameID, "path": s.Path,
					"initial_states": s.InitialStates, "active_states": s.ActiveStates,
					"local_data": s.LocalData, "info": s.Info})
				if utf8.ValidString(s.LocalData) {
					t.Errorf("expected the pickle in local_data to be non-UTF-8 bytes")
				}
			}
		}
	}
}

func checkSame(t *testing.T, topic string, v *Value, want map[string]any) {
	t.Helper()
	for path, w := range want {
		got, err := v.Get(path)
		if err != nil {
			t.Errorf("%s: %v", topic, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s %s: dynamic %v, typed %v", topic, path, got, w)
		}
	}
}
