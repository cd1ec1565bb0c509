package rosbag2

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/internal/sampledata"
)

// raw is one message as a bag yields it, with its connection.
type raw struct {
	topic, typ, def string
	t               int64
	data            string
}

// readRaw reads every message of the bag at path.
func readRaw(t *testing.T, path string) []raw {
	t.Helper()
	r, err := Open(path, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if p := r.Info().Problems; len(p) > 0 {
		t.Errorf("%s: problems: %v", path, p)
	}
	var out []raw
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		out = append(out, raw{m.Conn.Topic, m.Conn.Type, m.Conn.MessageDefinition, m.Time.UnixNano(), string(m.Data)})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if uint64(len(out)) != r.Info().Messages {
		t.Errorf("%s: %d messages read, info says %d", path, len(out), r.Info().Messages)
	}
	return out
}

// sameRaw reports the first difference of two message lists.
func sameRaw(t *testing.T, what string, got, want []raw) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: message %d is %s at %d (%d bytes), want %s at %d (%d bytes)", what, i,
				got[i].topic, got[i].t, len(got[i].data), want[i].topic, want[i].t, len(want[i].data))
		}
	}
}

// editMetadata rewrites a copy's metadata.yaml through edit.
func editMetadata(t *testing.T, dir string, edit func(info map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, MetadataFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc["rosbag2_bagfile_information"])
	if b, err = yaml.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setFiles lists the storage files in both of metadata.yaml's forms.
func setFiles(info map[string]any, names ...string) {
	var files []map[string]any
	for _, n := range names {
		files = append(files, map[string]any{"path": n})
	}
	info["relative_file_paths"], info["files"] = names, files
}

// storageFile is the one storage file metadata.yaml lists.
func storageFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	files, err := m.files(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("%s: files %v, %v", dir, files, err)
	}
	return files[0]
}

// compressFile replaces a storage file by NAME.zstd, as rosbag2's
// compression_mode FILE writes it.
func compressFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if err := os.WriteFile(path+".zstd", enc.EncodeAll(b, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	return path + ".zstd"
}

func writableDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=rw"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestFileCompression: every sample bag compressed whole per file (zstd,
// compression_mode FILE) reads as the original, from its directory and
// from the .zstd file itself.
func TestFileCompression(t *testing.T) {
	for _, name := range []string{tests + "mcap_talker", tests + "sqlite3_talker", tests + "mcap_cdr_test",
		tests + "sqlite3_cdr_test", tests + "sqlite3_bag_with_topics_and_service_events", "ros2/g1_ep29_mcap"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := sampledata.Copy(t, name)
			want := readRaw(t, dir)
			if len(want) == 0 {
				t.Fatal("the original has no messages")
			}
			zst := compressFile(t, storageFile(t, dir))
			editMetadata(t, dir, func(info map[string]any) {
				info["compression_format"], info["compression_mode"] = "zstd", "FILE"
				setFiles(info, filepath.Base(zst))
			})
			sameRaw(t, "directory", readRaw(t, dir), want)
			sameRaw(t, "file", readRaw(t, zst), want)
		})
	}
}

// TestMessageCompression: a .db3 whose every message is one zstd frame
// (compression_mode MESSAGE) reads as the original.
func TestMessageCompression(t *testing.T) {
	for _, name := range []string{tests + "sqlite3_talker", tests + "sqlite3_cdr_test", tests + "sqlite3_bag_with_topics_and_service_events"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := sampledata.Copy(t, name)
			want := readRaw(t, dir)
			db := writableDB(t, storageFile(t, dir))
			rows, err := db.Query(`SELECT id, data FROM messages`)
			if err != nil {
				t.Fatal(err)
			}
			blobs := map[int64][]byte{}
			for rows.Next() {
				var id int64
				var data []byte
				if err := rows.Scan(&id, &data); err != nil {
					t.Fatal(err)
				}
				blobs[id] = data
			}
			rows.Close()
			enc, err := zstd.NewWriter(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer enc.Close()
			for id, data := range blobs {
				exec(t, db, `UPDATE messages SET data = ? WHERE id = ?`, enc.EncodeAll(data, nil), id)
			}
			db.Close()
			editMetadata(t, dir, func(info map[string]any) {
				info["compression_format"], info["compression_mode"] = "zstd", "MESSAGE"
			})
			sameRaw(t, "message-compressed", readRaw(t, dir), want)
		})
	}
}

// TestSplitBag: a .db3 bag split in two files, by time (the second file
// after the first, as rosbag2 splits) and interleaved (their ranges
// overlap), reads as the original: the files merge in time order. Each
// half alone holds its own messages.
func TestSplitBag(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first string // SQL condition on messages of the first file
	}{
		{"by time", "id <= (SELECT MAX(id) FROM messages) / 2"},
		{"interleaved", "id % 2 = 0"},
		{"second file first", "id > (SELECT MAX(id) FROM messages) / 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sampledata.Copy(t, tests+"sqlite3_talker")
			want := readRaw(t, dir)
			src := storageFile(t, dir)
			a, b := filepath.Join(dir, "talker_0.db3"), filepath.Join(dir, "talker_1.db3")
			for _, p := range []string{a, b} {
				data, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.Remove(src)
			for p, q := range map[string]string{a: "DELETE FROM messages WHERE NOT (" + tc.first + ")", b: "DELETE FROM messages WHERE " + tc.first} {
				db := writableDB(t, p)
				exec(t, db, q)
				db.Close()
			}
			editMetadata(t, dir, func(info map[string]any) { setFiles(info, "talker_0.db3", "talker_1.db3") })
			got := readRaw(t, dir)
			sameRaw(t, "split", got, want)
			halves := append(readRaw(t, a), readRaw(t, b)...)
			slices.SortStableFunc(halves, func(x, y raw) int { return int(x.t - y.t) })
			sameRaw(t, "halves", halves, want)
		})
	}
}

// TestMessageCompressionDamage: a message that does not decompress ends
// the Iterator with an error naming the file and the message's time.
func TestMessageCompressionDamage(t *testing.T) {
	dir := sampledata.Copy(t, tests+"sqlite3_talker")
	editMetadata(t, dir, func(info map[string]any) {
		info["compression_format"], info["compression_mode"] = "zstd", "MESSAGE"
	})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it := r.Messages()
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	err = it.Err()
	if n != 0 || err == nil || !strings.Contains(err.Error(), "talker.db3: message at 1585866235112411371") {
		t.Fatalf("%d messages, error %v; want none and an error naming the file and time", n, err)
	}
}

// TestSplitMCAPOverlapping: an MCAP bag listing two files whose ranges
// overlap entirely (the same file twice) yields every message twice, in
// time order, the first file's copy first.
func TestSplitMCAPOverlapping(t *testing.T) {
	dir := sampledata.Copy(t, tests+"mcap_talker")
	orig := readRaw(t, dir)
	src := storageFile(t, dir)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "talker_1.mcap"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	editMetadata(t, dir, func(info map[string]any) { setFiles(info, filepath.Base(src), "talker_1.mcap") })
	var want []raw
	for _, m := range orig {
		want = append(want, m, m)
	}
	sameRaw(t, "overlapping", readRaw(t, dir), want)
}

func FuzzParseMetadata(f *testing.F) {
	for _, name := range []string{tests + "sqlite3_talker", tests + "mcap_cdr_test", "ros2/g1_ep29_mcap"} {
		if d := sampledata.Dir(); d != "" {
			if b, err := os.ReadFile(filepath.Join(d, name, MetadataFile)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("rosbag2_bagfile_information: {version: 5, storage_identifier: sqlite3, relative_file_paths: [a.db3, b.db3], compression_format: zstd, compression_mode: MESSAGE}\n"))
	f.Add([]byte("rosbag2_bagfile_information: {version: 9, storage_identifier: mcap, files: [{path: ../x.mcap}]}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMetadata(b)
		if err != nil {
			return
		}
		files, err := m.files("/bag")
		for _, p := range files {
			if err == nil && !strings.HasPrefix(p, "/bag/") {
				t.Fatalf("file %q outside the bag directory", p)
			}
		}
	})
}
