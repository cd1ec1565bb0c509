// Package rosbag2test writes rosbag2 sqlite3 bags (.db3) for tests, with
// the schema `ros2 bag record -s sqlite3` creates, through the same
// sqlite driver the reader uses, so that tests build the hostile bags
// they need (views, odd column types, far-future stamps) in a temp dir.
package rosbag2test

import (
	"database/sql"
	"encoding/binary"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the driver bag/rosbag2 reads with
)

// Message is one message of a .db3: a topic of the bag's, its log time
// in ns and its serialized data.
type Message struct {
	Topic string
	Time  int64
	Data  []byte
}

// Topic is one row of the topics table.
type Topic struct{ Name, Type string }

// StringTopic is a std_msgs/msg/String topic.
func StringTopic(name string) Topic { return Topic{name, "std_msgs/msg/String"} }

// String is a std_msgs/msg/String in CDR (little-endian, as ROS 2 sends it).
func String(s string) []byte {
	b := []byte{0, 1, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)+1))
	return append(append(b, s...), 0)
}

// Strings are messages of one String topic, each its text at its time.
func Strings(topic string, at map[int64]string) []Message {
	var out []Message
	for t, s := range at {
		out = append(out, Message{Topic: topic, Time: t, Data: String(s)})
	}
	return out
}

// WriteDB3 creates a .db3 at path holding topics and msgs (topic ids
// in the order given) and returns it open for the test to alter (closed
// at the end of the test).
func WriteDB3(t testing.TB, path string, topics []Topic, msgs []Message) *sql.DB {
	t.Helper()
	db := Open(t, path)
	Exec(t, db, `CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
		serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL)`)
	Exec(t, db, `CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL)`)
	Exec(t, db, `CREATE INDEX timestamp_idx ON messages (timestamp ASC)`)
	ids := map[string]int{}
	for i, tp := range topics {
		ids[tp.Name] = i + 1
		Exec(t, db, `INSERT INTO topics VALUES (?, ?, ?, 'cdr', '')`, i+1, tp.Name, tp.Type)
	}
	for _, m := range msgs {
		Exec(t, db, `INSERT INTO messages(topic_id, timestamp, data) VALUES (?, ?, ?)`, ids[m.Topic], m.Time, m.Data)
	}
	return db
}

// WriteBag writes a bag directory: metadata.yaml listing files (each
// written by the test beforehand, or not at all) with sqlite3 storage.
func WriteBag(t testing.TB, dir string, files ...string) {
	t.Helper()
	meta := "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  relative_file_paths:\n"
	for _, f := range files {
		meta += "    - " + f + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Open opens (or creates) a .db3 read-write, closed at the end of the test.
func Open(t testing.TB, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=rwc"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Exec runs q or fails the test.
func Exec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// CompressedImage is a sensor_msgs/msg/CompressedImage in CDR stamped
// at t (ns), with the given format (jpeg) and data.
func CompressedImage(t int64, frameID, format string, data []byte) []byte {
	b := []byte{0, 1, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(t/1e9))
	b = binary.LittleEndian.AppendUint32(b, uint32(t%1e9))
	b = appendString(b, frameID)
	b = appendString(b, format)
	b = align4(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// appendString appends a CDR string (aligned length, text, NUL).
func appendString(b []byte, s string) []byte {
	b = align4(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)+1))
	return append(append(b, s...), 0)
}

// align4 pads b to 4 bytes past the encapsulation header.
func align4(b []byte) []byte {
	for (len(b)-4)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
