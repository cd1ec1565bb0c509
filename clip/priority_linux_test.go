//go:build linux

package clip

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip/policy"
	"golang.org/x/sys/unix"
)

// TestWriterThreadNice: the stage's goroutine writes clips on a thread
// of its own whose nice value is writerNice above the process's, so that
// capture's threads win the CPU (issue 24: writing a clip never stalls
// capture).
func TestWriterThreadNice(t *testing.T) {
	seen := make(chan int, 1)
	testHookWriting = func() {
		nice, err := threadNice(unix.Gettid())
		if err != nil {
			t.Error(err)
		}
		select {
		case seen <- nice:
		default:
		}
	}
	t.Cleanup(func() { testHookWriting = nil })
	base, err := threadNice(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cfg := policy.Default()
	cfg.Pre, cfg.Post = time.Second, 0
	s := stageWith(t, cfg, t.TempDir(), Options{})
	at := time.Now()
	p, err := s.Trigger(Trigger{Kind: KindRequest, Time: at})
	if err != nil {
		t.Fatal(err)
	}
	s.Advance(at.Add(settle))
	if _, err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := <-seen, min(base+writerNice, 19); got != want {
		t.Errorf("the writer thread's nice = %d, want %d (the process's %d + %d)", got, want, base, writerNice)
	}
}

// threadNice is the nice value of thread tid of this process (field 19
// of /proc/self/task/TID/stat, counted after the command's closing
// parenthesis since the command may hold spaces).
func threadNice(tid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/task/%d/stat: no command: %q", tid, b)
	}
	fields := bytes.Fields(b[i+1:]) // fields 3.. : state is fields[0]
	const niceField = 19
	if len(fields) < niceField-2 {
		return 0, fmt.Errorf("/proc/self/task/%d/stat: %d fields", tid, len(fields)+2)
	}
	return strconv.Atoi(string(fields[niceField-3]))
}
