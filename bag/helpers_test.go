package bag

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
)

const python = "/usr/bin/python3"

var (
	pyOnce sync.Once
	pyErr  string
)

// requireRosbag skips unless Debian's python3 with rosbag and roslz4 is
// installed.
func requireRosbag(t testing.TB) {
	t.Helper()
	pyOnce.Do(func() {
		if _, err := os.Stat(python); err != nil {
			pyErr = python + " not found"
			return
		}
		out, err := exec.Command(python, "-c", "import rosbag, roslz4, sensor_msgs.msg").CombinedOutput()
		if err != nil {
			pyErr = "python3-rosbag, python3-roslz4 or python3-sensor-msgs missing: " + strings.TrimSpace(string(out))
		}
	})
	if pyErr != "" {
		t.Skipf("%s (run `make deps`)", pyErr)
	}
}

var (
	genOnce sync.Once
	genDir  string
	genErr  error
)

// generated returns the directory with none.bag, bz2.bag and lz4.bag
// written by testdata/bagtool.py (once per test binary).
func generated(t testing.TB) string {
	t.Helper()
	requireRosbag(t)
	genOnce.Do(func() {
		genDir, genErr = os.MkdirTemp("", "bagtest")
		if genErr != nil {
			return
		}
		var out []byte
		out, genErr = exec.Command(python, "testdata/bagtool.py", "make", genDir).CombinedOutput()
		if genErr != nil {
			genErr = fmt.Errorf("bagtool make: %w: %s", genErr, out)
		}
	})
	if genErr != nil {
		t.Fatalf("generating test bags: %v", genErr)
	}
	return genDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if genDir != "" {
		os.RemoveAll(genDir)
	}
	os.Exit(code)
}

// sharedData returns ../shared/data/name, or skips.
func sharedData(t testing.TB, name string) string {
	t.Helper()
	return sampledata.Path(t, name)
}

// dumped is one message as bagtool.py dump prints it.
type dumped struct {
	Topic  string         `json:"topic"`
	Sec    uint32         `json:"sec"`
	Nsec   uint32         `json:"nsec"`
	Type   string         `json:"type"`
	Len    int            `json:"len"`
	SHA1   string         `json:"sha1"`
	Values map[string]any `json:"values,omitempty"`
}

// id is everything but the decoded values.
func (d dumped) id() string {
	return fmt.Sprintf("%s %d.%09d %s %d %s", d.Topic, d.Sec, d.Nsec, d.Type, d.Len, d.SHA1)
}

// pyDump lists a bag's messages as python rosbag reads them.
func pyDump(t testing.TB, path string, values bool) []dumped {
	t.Helper()
	requireRosbag(t)
	args := []string{"testdata/bagtool.py", "dump", path}
	if values {
		args = append(args, "--values")
	}
	cmd := exec.Command(python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bagtool dump %s: %v\n%s", path, err, stderr.String())
	}
	var msgs []dumped
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d dumped
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("bagtool dump line %q: %v", sc.Text(), err)
		}
		msgs = append(msgs, d)
	}
	return msgs
}

// goDump lists messages as the Reader yields them.
func goDump(t testing.TB, r *Reader, topics ...string) []dumped {
	t.Helper()
	var msgs []dumped
	err := r.ForEach(func(m Message) error {
		sum := sha1.Sum(m.Data)
		ts := m.Time
		msgs = append(msgs, dumped{Topic: m.Conn.Topic, Sec: uint32(ts.Unix()), Nsec: uint32(ts.Nanosecond()),
			Type: m.Conn.Type, Len: len(m.Data), SHA1: hex.EncodeToString(sum[:])})
		return nil
	}, topics...)
	if err != nil {
		t.Fatalf("reading %s: %v", r.path, err)
	}
	return msgs
}

// sameMessages compares two listings without their decoded values.
func sameMessages(t *testing.T, what string, got, want []dumped) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d messages, python rosbag reads %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.id() != w.id() {
			t.Errorf("%s: message %d is\n  %+v\nwant\n  %+v", what, i, g, w)
			return
		}
	}
}

func openT(t testing.TB, path string) *Reader {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fromBytes(t testing.TB, b []byte) (*Reader, error) {
	t.Helper()
	return NewReader(bytes.NewReader(b), int64(len(b)), "mem.bag", Options{})
}
