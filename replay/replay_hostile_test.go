package replay_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
	"github.com/edged-robotics/edged/replay"
)

// talkerBag writes a bag directory holding talker.db3: ten String
// messages on /topic a tenth of a second apart. It returns the
// directory and the .db3, open for the test to alter.
func talkerBag(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	at := map[int64]string{}
	for i := range int64(10) {
		at[1_700_000_000_000_000_000+i*int64(100*time.Millisecond)] = fmt.Sprintf("Hello, world! %d", i)
	}
	db3 := filepath.Join(dir, "talker.db3")
	rosbag2test.WriteDB3(t, db3, []rosbag2test.Topic{rosbag2test.StringTopic("/topic")}, rosbag2test.Strings("/topic", at)).Close()
	rosbag2test.WriteBag(t, dir, "talker.db3")
	return dir, db3
}

// endless is a recursive query that never ends.
const endless = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) `

// TestReplayStopsWhileSQLiteSpins: a stopped replay (SIGTERM and SIGINT
// cancel its context) returns within a second whatever sqlite is doing:
// an endless recursive view as messages or topics, a 12-way cross join,
// a storage file that is a FIFO (issue 21: 100% CPU until SIGKILL).
func TestReplayStopsWhileSQLiteSpins(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alter []string // SQL on the .db3
		fifo  bool
	}{
		{"endless messages view", []string{`DROP TABLE messages`,
			`CREATE VIEW messages AS ` + endless + `SELECT n AS id, 1 AS topic_id, n AS timestamp, x'00' AS data FROM c`}, false},
		{"endless topics view", []string{`DROP TABLE topics`,
			`CREATE VIEW topics AS ` + endless + `SELECT n AS id, '/t' || n AS name, 'std_msgs/msg/String' AS type, 'cdr' AS serialization_format FROM c`}, false},
		{"12-way cross join", []string{`CREATE TABLE n(x)`, `INSERT INTO n VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)`,
			`DROP TABLE messages`,
			`CREATE VIEW messages AS SELECT a.x AS id, 1 AS topic_id, a.x+b.x+c.x+d.x+e.x+f.x+g.x+h.x+i.x+j.x+k.x+l.x AS timestamp, x'00' AS data
			 FROM n a, n b, n c, n d, n e, n f, n g, n h, n i, n j, n k, n l`}, false},
		{"storage file is a FIFO", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, db3 := talkerBag(t)
			db := rosbag2test.Open(t, db3)
			for _, q := range tc.alter {
				rosbag2test.Exec(t, db, q)
			}
			db.Close()
			if tc.fifo {
				os.Remove(db3)
				if err := syscall.Mkfifo(db3, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			}
			d := replayDaemon(t, "fsm: [{topic: /topic, type: string}]\n")
			const stopAfter = 300 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), stopAfter) // the signal
			defer cancel()
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := d.Run(ctx, []string{dir}, nil)
				done <- err
			}()
			select {
			case err := <-done:
				if took := time.Since(start); took > stopAfter+time.Second {
					t.Errorf("replay returned %s after the stop, want within a second", took-stopAfter)
				}
				if tc.fifo {
					if err == nil || !strings.Contains(err.Error(), "not a regular file") {
						t.Fatalf("replay of a FIFO: %v, want it refused", err)
					}
				} else if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("replay: %v, want the stop's error", err)
				}
			case <-time.After(stopAfter + 5*time.Second):
				t.Fatal("replay still running 5 s after the stop")
			}
		})
	}
}

// TestReplayRefusesRepeatedFiles: metadata.yaml listing one .db3 many
// times, or under two names, is refused with a clear error before any
// is opened (issue 21: 1,000 times cost 177 MB, 30,000 times 2.45 GB and
// "unable to open database file (14)").
func TestReplayRefusesRepeatedFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files func(dir string) []string
		want  string
	}{
		{"1,000 times", func(string) []string {
			var fs []string
			for range 1000 {
				fs = append(fs, "talker.db3")
			}
			return fs
		}, `file "talker.db3" is listed twice (entries 1 and 2)`},
		{"another name", func(string) []string { return []string{"talker.db3", "./talker.db3"} }, "is listed twice"},
		{"a link", func(dir string) []string {
			if err := os.Symlink("talker.db3", filepath.Join(dir, "link.db3")); err != nil {
				t.Fatal(err)
			}
			return []string{"talker.db3", "link.db3"}
		}, "is the storage file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := talkerBag(t)
			rosbag2test.WriteBag(t, dir, tc.files(dir)...)
			d := replayDaemon(t, "")
			_, err := d.Run(context.Background(), []string{dir}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "a bag lists each storage file once") {
				t.Fatalf("replay: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReplayReportsUnusableMessages: messages a replay cannot use (a
// data column holding text or numbers instead of CDR, a message over
// the role's size cap) are counted and reported per topic, and make the
// replay's error replay.ErrDamagedInput (issue 21: "replayed 10 messages", 0
// episodes, exit 0; a 300 MB message dropped without a word).
func TestReplayReportsUnusableMessages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		alter  string
		unused uint64
		want   string
	}{
		{"data is text", `UPDATE messages SET data = 'Hello'`, 10, "10 malformed"},
		{"data is a number", `UPDATE messages SET data = 12`, 10, "10 malformed"},
		{"a message over the cap", `UPDATE messages SET data = zeroblob(2000000) WHERE id = 3`, 1, "1 over the role's size cap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, db3 := talkerBag(t)
			db := rosbag2test.Open(t, db3)
			rosbag2test.Exec(t, db, tc.alter)
			db.Close()
			d := replayDaemon(t, "fsm: [{topic: /topic, type: string}]\n")
			sum, err := d.Run(context.Background(), []string{dir}, nil)
			if !errors.Is(err, replay.ErrDamagedInput) || sum.Unused != tc.unused {
				t.Fatalf("replay: %v, %d unused; want replay.ErrDamagedInput and %d", err, sum.Unused, tc.unused)
			}
			if p := strings.Join(sum.Damage, "\n"); !strings.Contains(p, "topic /topic") || !strings.Contains(p, tc.want) {
				t.Fatalf("damage %q, want the topic and %q", p, tc.want)
			}
		})
	}
}
