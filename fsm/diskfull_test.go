package fsm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/internal/poll"
)

// smallDisk mounts a tmpfs of size bytes (we may run as root) or skips.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// fill writes a file until the disk is full and returns it.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return path
		}
	}
}

// Disk full on a real file system: nothing leaks, the open episode's
// closed segments survive, the store reports it cannot write, and
// recording resumes by itself when space returns.
func TestDiskFullOnTmpfs(t *testing.T) {
	disk := smallDisk(t, 1<<20)
	dir := filepath.Join(disk, "episodes")
	st, err := epstore.Open(dir, epstore.Options{MinFreeBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m, err := New(Config{Robot: "arm-01", Sources: []Source{{Topic: "/s", IdleStates: []string{"idle"}}}}, st)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, dir: dir, store: st, m: m}
	t.Cleanup(func() { m.Close() })
	r.send("/s", 0, str("PICK"))
	r.send("/s", 1, str("PLACE")) // PICK closes, on disk
	r.flush()
	filler := fill(t, disk)
	r.send("/s", 2, str("idle")) // PLACE closes and the episode ends: both must wait in memory
	for i := range 150 {         // an episode per message tries to begin
		r.send("/s", 3+float64(i)/100, str([]string{"idle", "PICK"}[i%2]))
	}
	r.flush()
	if err := st.Health(); err == nil {
		t.Fatal("the store reports healthy on a full disk")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 { // .lock and the first episode
		t.Fatalf("%d entries in the store on a full disk (leaked episode directories)", len(ents))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r.send("/s", 5, str("PICK")) // the robot works on: recording resumes by itself
	poll.Until(t, 10*time.Second, "a second episode", func() bool { ms, _ := episode.List(dir); return len(ms) == 2 })
	poll.Until(t, 10*time.Second, "a healthy store", func() bool { return st.Health() == nil })
	r.send("/s", 6, str("idle"))
	r.flush()
	eps := r.episodes()
	if len(eps) != 2 {
		t.Fatalf("%d episodes", len(eps))
	}
	if got := timeline(eps[0]); got != "PICK[0-1]completed PLACE[1-2]completed" || !eps[0].Manifest.Closed ||
		eps[0].Manifest.Outcome != episode.Completed {
		t.Fatalf("first episode %s %+v", got, eps[0].Manifest)
	}
	if got := timeline(eps[1]); !strings.HasPrefix(got, "PICK[0-") || !strings.HasSuffix(got, "]completed") {
		t.Fatalf("resumed episode %s", got)
	}
	if s := m.Stats(); s.StoreErrors == 0 {
		t.Fatalf("stats %+v", s)
	}
}
