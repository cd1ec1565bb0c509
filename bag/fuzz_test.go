package bag

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fuzzOptions keep allocations small on hostile input.
var fuzzOptions = Options{MaxHeaderBytes: 4 << 10, MaxConnectionBytes: 64 << 10, MaxChunkBytes: 64 << 10, MaxCacheBytes: 256 << 10}

func field(name string, v []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)+1+len(v)))
	return append(append(append(b, name...), '='), v...)
}

func FuzzParseHeader(f *testing.F) {
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	f.Add(bytes.Join([][]byte{field("op", []byte{opMsgData}), field("conn", u32(3)), field("time", make([]byte, 8))}, nil))
	f.Add(bytes.Join([][]byte{field("op", []byte{opChunk}), field("compression", []byte("lz4")), field("size", u32(99))}, nil))
	f.Add(field("op", []byte{1, 2}))
	f.Add([]byte{255, 255, 255, 255, 'o', 'p'})
	f.Fuzz(func(t *testing.T, b []byte) {
		var h recordHeader
		if err := parseHeader(b, &h); err != nil {
			return
		}
		if !h.has(hasOp) {
			t.Fatal("parsed a header without op")
		}
		_ = h.require()
		var m memRecord
		rec := append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
		rec = binary.LittleEndian.AppendUint32(rec, 0)
		if err := parseRecordAt(rec, 0, len(b), &m); err != nil || m.next != len(rec) || len(m.data) != 0 {
			t.Fatalf("record around a good header: next %d of %d, %v", m.next, len(rec), err)
		}
	})
}

// FuzzReader opens and reads whole (small) bags; seeds are tiny bags of
// every compression from bagtool.py, indexed and not.
func FuzzReader(f *testing.F) {
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), "fuzz.bag", fuzzOptions)
		if err != nil {
			return
		}
		in := r.Info()
		if in.Messages != uint64(len(r.entries)) {
			t.Fatalf("info says %d messages, %d indexed", in.Messages, len(r.entries))
		}
		it := r.Messages()
		n := 0
		for it.Next() {
			m := it.Message()
			if m.Conn == nil || m.Time.IsZero() && m.Time.UnixNano() != 0 {
				t.Fatalf("message %+v", m)
			}
			n++
		}
		if it.Err() == nil && uint64(n) != in.Messages {
			t.Fatalf("read %d messages of %d without an error", n, in.Messages)
		}
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzReader from
// bagtool.py's tiny bags when BAG_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("BAG_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set BAG_WRITE_FUZZ_SEEDS=1 to regenerate the fuzz seed corpus")
	}
	requireRosbag(t)
	dir := t.TempDir()
	if out, err := exec.Command(python, "testdata/bagtool.py", "tiny", dir).CombinedOutput(); err != nil {
		t.Fatalf("bagtool tiny: %v: %s", err, out)
	}
	out := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, comp := range []string{"none", "bz2", "lz4"} {
		b := readFile(t, filepath.Join(dir, comp+".bag"))
		// the bag header's padding is 4 KiB of spaces: shorten it so the
		// fuzzer spends its time on records
		b = shrinkPadding(t, b)
		noIndex := bytes.Clone(b)
		_, at := indexPos(t, noIndex)
		binary.LittleEndian.PutUint64(noIndex[at:], 0)
		for name, seed := range map[string][]byte{comp: b, comp + "-unindexed": noIndex} {
			if _, err := fromBytes(t, seed); err != nil {
				t.Fatalf("seed %s: %v", name, err)
			}
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seed)
			if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// shrinkPadding cuts the bag header record's padding data to 4 bytes and
// moves every file offset (index_pos, chunk_pos) accordingly.
func shrinkPadding(t *testing.T, b []byte) []byte {
	t.Helper()
	hl := binary.LittleEndian.Uint32(b[13:])
	dlAt := 13 + 4 + int(hl)
	dl := int(binary.LittleEndian.Uint32(b[dlAt:]))
	cut := dl - 4
	out := bytes.Clone(b[:dlAt])
	out = binary.LittleEndian.AppendUint32(out, 4)
	out = append(out, "    "...)
	out = append(out, b[dlAt+4+dl:]...)
	pos, at := indexPos(t, out)
	binary.LittleEndian.PutUint64(out[at:], pos-uint64(cut))
	for i := 0; ; {
		j := bytes.Index(out[i:], []byte("chunk_pos="))
		if j < 0 {
			break
		}
		p := i + j + len("chunk_pos=")
		binary.LittleEndian.PutUint64(out[p:], binary.LittleEndian.Uint64(out[p:])-uint64(cut))
		i = p
	}
	return out
}
