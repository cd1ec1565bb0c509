package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/rostest"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestDiskFullDegradesLoudly runs edged with its data_dir on a small
// tmpfs, fills it while an FSM publisher changes state 20 times a
// second, and checks: /healthz says not ready and why, /metrics counts
// the failures, the log says so once per kind (not per message), no
// episode directory leaks, and recording resumes by itself when space
// returns, with no segment of the open episode lost.
func TestDiskFullDegradesLoudly(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster, rospy and a tmpfs; skipped with -short")
	}
	rostest.Require(t, "rosmaster")
	rostest.RequireRospy(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", data).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", data).Run() })
	m := rostest.StartMaster(t)
	port := rostest.FreePort(t)
	cfg := parseConfig(t, fmt.Sprintf(`
robot_id: arm-01
data_dir: %s
ros: {master_uri: %q, host: 127.0.0.1}
fsm: [{topic: /task_state, type: string}]
episode: {min_free_bytes: 0}
http: {listen: "127.0.0.1:%d"}
`, data, m.URI, port))
	logs := &lockedBuf{}
	_, run := runDaemon(t, cfg, Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), Version: "test"})
	m.Publish("--topic", "/task_state", "--kind", "string", "--rate", "20")
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	store := filepath.Join(data, "episodes")
	segments := func() int {
		ms, _ := episode.List(store)
		n := 0
		for _, m := range ms {
			e, err := episode.Load(store, m.ID)
			if err == nil {
				n += len(e.Segments)
			}
		}
		return n
	}
	rostest.WaitFor(t, 30*time.Second, "ready and recording", func() bool {
		code, _ := get("/healthz")
		return code == 200 && segments() > 3
	})

	filler := filepath.Join(data, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for buf := make([]byte, 4096); ; {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	rostest.WaitFor(t, 10*time.Second, "/healthz not ready", func() bool {
		code, body := get("/healthz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "episode store")
	})
	_, body := get("/metrics")
	if metric(body, "edged_episode_store_writable") != 0 || metric(body, `edged_episode_store_errors_total{op="append"}`) < 1 {
		t.Errorf("/metrics on a full disk:\n%s", grepLines(body, "edged_episode"))
	}
	for _, m := range []string{"edged_episode_retention_clips_deleted_total", "edged_episode_retention_clip_bytes_deleted_total"} {
		if metric(body, m) < 0 {
			t.Errorf("/metrics lacks %s (the store's clip deletions)", m)
		}
	}
	rostest.WaitFor(t, 10*time.Second, "more failures", func() bool {
		_, body := get("/metrics")
		return metric(body, "edged_fsm_store_errors_total") > 10
	})
	before := segments()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	rostest.WaitFor(t, 10*time.Second, "ready again and recording", func() bool {
		code, _ := get("/healthz")
		return code == 200 && segments() > before+3
	})
	run.stop(t)
	if n := strings.Count(logs.String(), "episode store: write failed"); n < 1 || n > 4 {
		t.Errorf("%d 'write failed' log lines, want one per kind of write:\n%s", n, grepLines(logs.String(), "episode store"))
	}
	if n := strings.Count(logs.String(), "not queued for upload"); n > 3 {
		t.Errorf("%d 'not queued for upload' log lines: one per message", n)
	}
	ents, _ := os.ReadDir(store)
	for _, e := range ents {
		if sub, _ := os.ReadDir(filepath.Join(store, e.Name())); e.IsDir() && len(sub) == 0 {
			t.Errorf("empty episode directory %s left behind", e.Name())
		}
	}
	ms, _ := episode.List(store)
	for _, m := range ms {
		e, err := episode.Load(store, m.ID)
		if err != nil || len(e.Problems) > 0 || !m.Closed {
			t.Fatalf("%s: %v %v closed=%v", m.ID, err, e.Problems, m.Closed)
		}
		for i, s := range e.Segments {
			if s.Index != i || (i > 0 && !s.Start.Equal(e.Segments[i-1].End)) {
				t.Fatalf("%s: segment %d (index %d) does not follow the one before: a segment was lost", m.ID, i, s.Index)
			}
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
