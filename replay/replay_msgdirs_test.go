package replay_test

import (
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/replay"
)

// TestReplayMsgDirs: a rosbag2 bag whose definition of a custom type is
// a one-line placeholder (as the talker .db3 of rosbag2's tests holds
// for its types) is decoded with the .msg file of ros2.msg_dirs: an fsm
// field source on that type makes its episode. Without msg_dirs the
// placeholder cannot decode the messages.
func TestReplayMsgDirs(t *testing.T) {
	bagDir := sampledata.Copy(t, "ros2/rosbag2_tests/sqlite3_talker")
	// /topic becomes robot_msgs/msg/Chatter, defined in the bag only by a
	// placeholder; its messages are std_msgs/String's ("Hello, world! N")
	db := openWritable(t, filepath.Join(bagDir, "talker.db3"))
	for _, q := range []string{
		`UPDATE topics SET type = 'robot_msgs/msg/Chatter' WHERE name = '/topic'`,
		`UPDATE message_definitions SET topic_type = 'robot_msgs/msg/Chatter', encoded_message_definition = 'uint8 placeholder' WHERE topic_type = 'std_msgs/msg/String'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	msgs := filepath.Join(t.TempDir(), "share")
	if err := os.MkdirAll(filepath.Join(msgs, "robot_msgs", "msg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(msgs, "robot_msgs", "msg", "Chatter.msg"), []byte("# what the talker says\nstring text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const base = `
robot_id: talker
fsm: [{topic: /topic, type: field, field: text, idle_states: ["Hello, world! 0"]}]
`
	for _, tc := range []struct {
		name     string
		extra    string
		episodes uint64
		segments uint64
		decodeOK bool
	}{
		{"with msg_dirs", "ros2: {msg_dirs: [" + msgs + "]}\n", 1, 9, true},
		{"without", "", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(base + tc.extra))
			if err != nil {
				t.Fatal(err)
			}
			// Messages it cannot decode are damage (issue 21): the replay
			// says so with its error.
			sum, err := pipelinetest.ReplayBagErr(t, cfg, t.TempDir(), bagDir)
			if tc.decodeOK != (err == nil) || (err != nil && !errors.Is(err, replay.ErrDamagedInput)) {
				t.Errorf("replay: %v", err)
			}
			var decodeErrors, events uint64
			for _, ts := range sum.Topics {
				if ts.Topic == "/topic" {
					decodeErrors, events = ts.DecodeErrors+ts.UnknownType, ts.Events
				}
			}
			if sum.Episodes != tc.episodes || sum.Segments != tc.segments {
				t.Errorf("%d episodes, %d segments; want %d, %d", sum.Episodes, sum.Segments, tc.episodes, tc.segments)
			}
			if tc.decodeOK && (decodeErrors != 0 || events != 10) {
				t.Errorf("/topic: %d events, %d decode errors; want 10 and 0", events, decodeErrors)
			}
			if !tc.decodeOK && decodeErrors == 0 {
				t.Errorf("/topic decoded with the placeholder definition (%d events)", events)
			}
		})
	}
}

// TestCheckMsgDirs: daemon.Check parses the .msg files of ros2.msg_dirs
// as run loads them, naming the field and the file.
func TestCheckMsgDirs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "robot_msgs", "msg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "robot_msgs", "msg", "Bad.msg"), []byte("int32[ x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("robot_id: r\nros2: {msg_dirs: [" + dir + "]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = pipeline.Check(cfg)
	if err == nil || !strings.Contains(err.Error(), "ros2.msg_dirs:") || !strings.Contains(err.Error(), "Bad.msg") {
		t.Fatalf("Check = %v, want an error naming ros2.msg_dirs and Bad.msg", err)
	}
}

// openWritable opens a copy of a .db3 file to alter it.
func openWritable(t *testing.T, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=rw"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	return db
}
