package rostest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/freeport"
)

// Python is the interpreter with rospy (Debian's, not a pyenv one).
const Python = "/usr/bin/python3"

// Require skips t unless every binary is installed (a name without a
// slash is looked up on PATH).
func Require(t testing.TB, binaries ...string) {
	t.Helper()
	for _, b := range binaries {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed (run `make deps`): %v", b, err)
		}
	}
}

// RequireRospy skips t unless Debian's python3 can import rospy.
func RequireRospy(t testing.TB) {
	t.Helper()
	Require(t, Python)
	if err := exec.Command(Python, "-c", "import rospy, sensor_msgs.msg").Run(); err != nil {
		t.Skipf("rospy/sensor_msgs for %s is not installed (run `make deps`): %v", Python, err)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago
// (freeport.Port, kept under this name for the ROS tests that call it).
func FreePort(t testing.TB) int {
	t.Helper()
	return freeport.Port(t)
}

// WaitFor polls cond every 20 ms until it holds, failing t with what after
// timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Proc is a child process in its own process group.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 { // keep the test's memory bounded
		return len(p), nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Start runs name with args and env (added to the current environment),
// killing its process group when the test ends.
func Start(t testing.TB, env []string, name string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(withoutROS(os.Environ()), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Proc{Name: name, cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("output of %s %v:\n%s", name, args, p.Output())
		}
	})
	return p
}

// Kill kills the process group and waits for the process to exit.
func (p *Proc) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGINT to the group, then kills it after grace.
func (p *Proc) Stop(grace time.Duration) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.Kill()
	}
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Output is what the process wrote so far (stdout and stderr).
func (p *Proc) Output() string { return p.out.String() }

// Wait waits up to timeout for the process to exit and returns its error.
func (p *Proc) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s still running after %s", p.Name, timeout)
	}
}

// withoutROS drops inherited ROS_* variables so a developer's shell
// cannot point a test's processes at a real robot.
func withoutROS(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ROS_") {
			out = append(out, kv)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
