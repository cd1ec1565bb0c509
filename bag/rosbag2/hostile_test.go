package rosbag2

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
)

// TestOpenFilesBounded: an Iterator opens a bag's storage files as the
// merge reaches them and keeps at most MaxOpenFiles open; more files
// overlapping in time end it with an error naming the option, and a bag
// of many files that follow each other reads whole with one open.
func TestOpenFilesBounded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		overlap  bool
		maxOpen  int
		wantErr  string
		messages int
	}{
		{"overlapping within the bound", true, 3, "", 6},
		{"overlapping past the bound", true, 2, "3 storage files overlap in time", 0},
		{"following each other, one open", false, 1, "", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var names []string
			for i := range int64(3) {
				name := fmt.Sprintf("bag_%d.db3", i)
				base := i * 1000
				if tc.overlap {
					base = i
				}
				msgs := rosbag2test.Strings("/topic", map[int64]string{base + 10: "a", base + 20: "b"})
				rosbag2test.WriteDB3(t, filepath.Join(dir, name), []rosbag2test.Topic{rosbag2test.StringTopic("/topic")}, msgs).Close()
				names = append(names, name)
			}
			rosbag2test.WriteBag(t, dir, names...)
			r, err := Open(dir, Options{MaxOpenFiles: tc.maxOpen})
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
			if tc.wantErr == "" && (err != nil || n != tc.messages) {
				t.Fatalf("%d messages, %v; want %d", n, err, tc.messages)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "Options.MaxOpenFiles")) {
				t.Fatalf("%d messages, %v; want an error %q naming Options.MaxOpenFiles", n, err, tc.wantErr)
			}
		})
	}
}

// TestOversizeMessageSkipped: a .db3 message over MaxMessageBytes is
// never loaded, and is passed over and named in Skipped; the messages
// after it are read (it ended the Iterator, losing the rest of the file).
func TestOversizeMessageSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.db3")
	msgs := rosbag2test.Strings("/topic", map[int64]string{10: "a", 20: strings.Repeat("b", 4096), 30: "c"})
	rosbag2test.WriteDB3(t, path, []rosbag2test.Topic{rosbag2test.StringTopic("/topic")}, msgs).Close()
	r, err := Open(path, Options{MaxMessageBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it := r.Messages()
	defer it.Close()
	var times []int64
	for it.Next() {
		times = append(times, it.Message().Time.UnixNano())
	}
	if err := it.Err(); err != nil || !slices.Equal(times, []int64{10, 30}) {
		t.Fatalf("messages at %v, %v; want 10 and 30", times, err)
	}
	if s := it.Skipped(); len(s) != 1 || !strings.Contains(s[0], "the message at 20") || !strings.Contains(s[0], "more than the cap of 1024") {
		t.Fatalf("skipped %q", s)
	}
}
