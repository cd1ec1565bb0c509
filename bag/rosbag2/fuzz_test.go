package rosbag2

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
)

// fuzzSeeds are bags of one .db3 as (metadata.yaml, .db3 bytes): a valid
// one, message-compressed, and hostile ones (a view that never ends, a
// text data column, an empty database).
func fuzzSeeds(tb testing.TB) [][2][]byte {
	meta := func(extra string) []byte {
		return []byte("rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  relative_file_paths: [bag.db3]\n" + extra)
	}
	db3 := func(alter ...string) []byte {
		path := filepath.Join(tb.TempDir(), "bag.db3")
		msgs := rosbag2test.Strings("/topic", map[int64]string{10: "a", 20: "b", 30: "c"})
		db := rosbag2test.WriteDB3(tb, path, []rosbag2test.Topic{rosbag2test.StringTopic("/topic"), {Name: "/other", Type: "pkg/msg/T"}}, msgs)
		for _, q := range alter {
			rosbag2test.Exec(tb, db, q)
		}
		db.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	return [][2][]byte{
		{meta(""), db3()},
		{meta("  compression_format: zstd\n  compression_mode: MESSAGE\n"), db3()},
		{meta(""), db3(`DROP TABLE messages`, `CREATE VIEW messages AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n AS id, 1 AS topic_id, n AS timestamp, x'00' AS data FROM c`)},
		{meta(""), db3(`UPDATE messages SET data = 'text'`, `CREATE TABLE message_definitions(topic_type TEXT, encoding TEXT, encoded_message_definition TEXT)`,
			`INSERT INTO message_definitions VALUES ('std_msgs/msg/String', 'ros2msg', 'string data')`)},
		{meta("  files: [{path: bag.db3}, {path: bag.db3}]\n"), db3(`DELETE FROM messages`)},
	}
}

// TestWriteFuzzSeeds writes fuzzSeeds as FuzzOpen's seed corpus in
// testdata/fuzz/FuzzOpen when EDGED_WRITE_FUZZ_SEEDS is set (after a
// change to rosbag2test's schema).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("EDGED_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("EDGED_WRITE_FUZZ_SEEDS is not set: the seed corpus is kept as committed")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range fuzzSeeds(t) {
		b := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", s[0], s[1])
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzOpen: whatever metadata.yaml and the .db3 hold, Open and a full
// iteration end (within the context's deadline) without a panic, and
// every message has its connection and is within the message cap. The
// seeds (testdata/fuzz/FuzzOpen) are fuzzSeeds. Coverage-guided runs
// (go test -fuzz) are slow, a few inputs a second: the sqlite driver,
// instrumented with the rest, is large; a binary built with go test -c
// and run with -test.fuzz mutates unguided at hundreds a second.
func FuzzOpen(f *testing.F) {
	const maxMessage = 1 << 20
	f.Fuzz(func(t *testing.T, meta, db []byte) {
		dir := t.TempDir()
		if os.WriteFile(filepath.Join(dir, MetadataFile), meta, 0o644) != nil || os.WriteFile(filepath.Join(dir, "bag.db3"), db, 0o644) != nil {
			t.Fatal("cannot write the bag")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := OpenContext(ctx, dir, Options{MaxMessageBytes: maxMessage, MaxFileBytes: 64 << 20, MaxOpenFiles: 4, TempDir: t.TempDir()})
		if err != nil {
			return
		}
		defer r.Close()
		it := r.MessagesContext(ctx)
		defer it.Close()
		for it.Next() {
			m := it.Message()
			if m.Conn == nil || len(m.Data) > maxMessage {
				t.Fatalf("message without a connection or over the cap: %+v (%d bytes)", m.Conn, len(m.Data))
			}
		}
		_ = it.Err()
	})
}
