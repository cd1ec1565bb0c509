package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGeneratedBags: bags written by python rosbag with each compression
// and overlapping chunks read back in rosbag's order, byte for byte.
func TestGeneratedBags(t *testing.T) {
	dir := generated(t)
	for _, comp := range []string{"none", "bz2", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(dir, comp+".bag")
			r := openT(t, path)
			in := r.Info()
			if !in.Indexed || len(in.Problems) != 0 {
				t.Errorf("indexed %v, problems %q", in.Indexed, in.Problems)
			}
			if in.Messages != 125 || in.Compression[comp] != in.Chunks || in.Chunks < 10 {
				t.Errorf("info %+v", in)
			}
			if in.Start != time.Unix(1700000000, 0) || in.End != time.Unix(1700000006, 2e8) {
				t.Errorf("start %v end %v", in.Start, in.End)
			}
			wantTopics := []TopicInfo{
				{"/cam/compressed", "sensor_msgs/CompressedImage", "8f7a12909da2c9d3332d540a0977563f", 60, 1},
				{"/joint_states", "sensor_msgs/JointState", "3066dcd76a6cfaef579bd0f34173e9fd", 60, 1},
				{"/task_state", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", 5, 1},
			}
			if len(in.Topics) != len(wantTopics) {
				t.Fatalf("topics %+v", in.Topics)
			}
			for i, w := range wantTopics {
				if in.Topics[i] != w {
					t.Errorf("topic %d: %+v, want %+v", i, in.Topics[i], w)
				}
			}
			sameMessages(t, comp, goDump(t, r), pyDump(t, path, false))
		})
	}
}

func TestConnections(t *testing.T) {
	r := openT(t, filepath.Join(generated(t), "lz4.bag"))
	var task *Connection
	for _, c := range r.Connections() {
		if c.Topic == "/task_state" {
			task = c
		}
		p := c.Publisher
		if p == nil || p.Type != c.Type || p.MD5Sum != c.MD5Sum || p.MessageDefinition != c.MessageDefinition ||
			p.CallerID != c.CallerID || p.Latching != c.Latching {
			t.Errorf("connection %d: publisher %+v does not match", c.ID, p)
		}
	}
	if task == nil {
		t.Fatal("no /task_state connection")
	}
	if task.CallerID != "/task_fsm" || !task.Latching || task.Type != "std_msgs/String" ||
		!strings.Contains(task.MessageDefinition, "string data") {
		t.Errorf("task connection %+v", task)
	}
	if r.Messages().Message().Conn != nil {
		t.Error("Message before Next is not empty")
	}
}

func TestTopicFilter(t *testing.T) {
	path := filepath.Join(generated(t), "bz2.bag")
	r := openT(t, path)
	var want []dumped
	for _, d := range pyDump(t, path, false) {
		if d.Topic == "/task_state" || d.Topic == "/joint_states" {
			want = append(want, d)
		}
	}
	sameMessages(t, "two topics", goDump(t, r, "/task_state", "/joint_states"), want)
	it := r.Messages("/nope")
	if it.Next() || it.Err() != nil {
		t.Errorf("unknown topic: next, err %v", it.Err())
	}
	it = r.Messages("/task_state")
	for it.Next() {
	}
	if done, total := it.Progress(); done != 5 || total != 5 {
		t.Errorf("progress %d/%d", done, total)
	}
}

// TestConcurrentIterators: several Iterators on one Reader at once.
func TestConcurrentIterators(t *testing.T) {
	path := filepath.Join(generated(t), "lz4.bag")
	r := openT(t, path)
	want := goDump(t, r)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := goDump(t, r)
			if len(got) != len(want) || got[len(got)-1].id() != want[len(want)-1].id() {
				t.Errorf("concurrent iterator read %d messages, want %d", len(got), len(want))
			}
		}()
	}
	wg.Wait()
}

// TestSmallCache: a cache too small for the overlapping chunks evicts
// and reloads them, and still yields the same messages.
func TestSmallCache(t *testing.T) {
	path := filepath.Join(generated(t), "bz2.bag")
	r, err := OpenOptions(path, Options{MaxCacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sameMessages(t, "1-byte cache", goDump(t, r), pyDump(t, path, false))
}

// indexPos returns the bag header's index_pos field and its offset.
func indexPos(t *testing.T, b []byte) (pos uint64, at int) {
	t.Helper()
	i := bytes.Index(b[:min(len(b), 4096)], []byte("index_pos="))
	if i < 0 {
		t.Fatal("no index_pos in the bag header")
	}
	at = i + len("index_pos=")
	return binary.LittleEndian.Uint64(b[at:]), at
}

// TestUnindexed: a bag whose header has no index position (as while it
// is being recorded), or whose index was cut off, is scanned and yields
// every message in the same order.
func TestUnindexed(t *testing.T) {
	dir := generated(t)
	for _, comp := range []string{"none", "bz2", "lz4"} {
		path := filepath.Join(dir, comp+".bag")
		want := pyDump(t, path, false)
		orig := readFile(t, path)
		ipos, at := indexPos(t, orig)

		noPos := bytes.Clone(orig)
		binary.LittleEndian.PutUint64(noPos[at:], 0)
		cut := orig[:ipos]
		badPos := bytes.Clone(orig)
		binary.LittleEndian.PutUint64(badPos[at:], uint64(len(orig))+100)
		for name, b := range map[string][]byte{"no index_pos": noPos, "index cut off": cut, "index_pos past the end": badPos} {
			r, err := fromBytes(t, b)
			if err != nil {
				t.Fatalf("%s %s: %v", comp, name, err)
			}
			in := r.Info()
			if in.Indexed || len(in.Problems) == 0 || !strings.Contains(in.Problems[0], "index not used") {
				t.Errorf("%s %s: indexed %v problems %q", comp, name, in.Indexed, in.Problems)
			}
			sameMessages(t, comp+" "+name, goDump(t, r), want)
		}
	}
}

// TestTruncated: a bag cut anywhere inside its chunks yields the
// messages before the cut (with their exact bytes) and reports the loss.
func TestTruncated(t *testing.T) {
	dir := generated(t)
	for _, comp := range []string{"none", "bz2", "lz4"} {
		path := filepath.Join(dir, comp+".bag")
		want := map[string]bool{}
		for _, d := range pyDump(t, path, false) {
			want[d.SHA1] = true
		}
		orig := readFile(t, path)
		ipos, _ := indexPos(t, orig)
		prev := -1
		step := (int(ipos)-4200)/40 | 1 // about 40 cuts at odd offsets
		for cut := 4200; cut < int(ipos); cut += step {
			r, err := fromBytes(t, orig[:cut])
			if err != nil {
				t.Fatalf("%s cut at %d: %v", comp, cut, err)
			}
			in := r.Info()
			if in.Indexed || len(in.Problems) < 2 {
				t.Errorf("%s cut at %d: indexed %v, problems %q", comp, cut, in.Indexed, in.Problems)
			}
			got := goDump(t, r)
			for _, d := range got {
				if !want[d.SHA1] {
					t.Fatalf("%s cut at %d: message %+v is not in the bag", comp, cut, d)
				}
			}
			if len(got) < prev-1 { // a cut mid-record can lose at most the record in progress
				t.Errorf("%s cut at %d: %d messages, %d at a shorter cut", comp, cut, len(got), prev)
			}
			prev = len(got)
		}
		if prev < 100 {
			t.Errorf("%s: only %d messages just before the index", comp, prev)
		}
	}
}

func TestBadFiles(t *testing.T) {
	orig := readFile(t, filepath.Join(generated(t), "none.bag"))
	hugeHeader := bytes.Clone(orig)
	binary.LittleEndian.PutUint32(hugeHeader[13:], 1<<30)
	cases := []struct {
		name string
		b    []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrCorrupt, "too short"},
		{"not a bag", []byte("hello, this is not a bag at all"), ErrCorrupt, "not a ROS bag"},
		{"version 1.2", []byte("#ROSBAG V1.2\nxxxxxxxxxxxx"), ErrUnsupported, "1.2"},
		{"magic only", []byte(Magic), ErrCorrupt, "offset 13"},
		{"huge header", hugeHeader, ErrCorrupt, "offset 13: record header length 1073741824 exceeds the cap"},
	}
	for _, c := range cases {
		_, err := fromBytes(t, c.b)
		if err == nil || !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %v containing %q", c.name, err, c.is, c.msg)
		}
	}
	var ce *CorruptError
	if _, err := fromBytes(t, hugeHeader); !errors.As(err, &ce) || ce.Offset != 13 {
		t.Errorf("huge header: %#v", err)
	}
}

// TestCorruptChunk: damage inside a chunk is a CorruptError naming the
// chunk's offset while iterating; damage to the index falls back to a
// scan.
func TestCorruptChunk(t *testing.T) {
	orig := readFile(t, filepath.Join(generated(t), "none.bag"))
	r, err := fromBytes(t, orig)
	if err != nil {
		t.Fatal(err)
	}
	c := r.chunks[2]
	e := r.entries[0]
	for _, x := range r.entries {
		if x.chunk == 2 {
			e = x
			break
		}
	}
	// the op of the message record the index points at
	bad := bytes.Clone(orig)
	op := bytes.Index(bad[c.dataPos+int64(e.off):], []byte("op=\x02"))
	bad[c.dataPos+int64(e.off)+int64(op)+3] = opChunkInfo
	r, err = fromBytes(t, bad)
	if err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	err = r.ForEach(func(Message) error { return nil })
	if !errors.As(err, &ce) || ce.Chunk != c.pos || ce.InChunk != int64(e.off) || !strings.Contains(err.Error(), "not a message") {
		t.Errorf("iterating a damaged chunk: %v", err)
	}

	// an index entry pointing outside its chunk
	ipos, _ := indexPos(t, orig)
	bad = bytes.Clone(orig)
	i := bytes.Index(bad[c.dataPos+c.dataLen:], []byte("op=\x04"))
	if i < 0 || c.dataPos+c.dataLen+int64(i) > int64(ipos) {
		t.Fatal("no index data record after chunk 2")
	}
	// the index data record's data: time then offset, after "data len"
	rec := c.dataPos + c.dataLen
	hl := int64(binary.LittleEndian.Uint32(bad[rec:]))
	binary.LittleEndian.PutUint32(bad[rec+8+hl+8:], 1<<31)
	r, err = fromBytes(t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if in := r.Info(); in.Indexed || !strings.Contains(in.Problems[0], "outside the chunk") || in.Messages != 125 {
		t.Errorf("broken index: indexed %v, %d messages, problems %q", in.Indexed, in.Messages, in.Problems)
	}
}
