package ddstest

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros2/dds"
)

//go:embed testdata/ros2.idl testdata/pub.c testdata/sub.c
var sources embed.FS

//go:embed testdata/msg
var msgs embed.FS

// Tools are the built test programs.
type Tools struct {
	Pub string // a ROS 2 publisher (see testdata/pub.c)
	Sub string // a plain Cyclone DDS subscriber of CompressedImage (benchmarks)
}

var build struct {
	once  sync.Once
	tools Tools
	skip  string
	err   error
}

// Build compiles the test programs once per process (and once per source
// version on the machine), or skips the test when gcc, idlc or
// cyclonedds-dev is missing.
func Build(t testing.TB) Tools {
	t.Helper()
	build.once.Do(func() { build.tools, build.skip, build.err = compile() })
	if build.skip != "" {
		t.Skip(build.skip)
	}
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.tools
}

func compile() (Tools, string, error) {
	for _, bin := range []string{"gcc", "idlc"} {
		if _, err := exec.LookPath(bin); err != nil {
			return Tools{}, bin + " not installed: run `make deps` (cyclonedds-dev, cyclonedds-tools, gcc)", nil
		}
	}
	if _, err := os.Stat("/usr/include/dds/dds.h"); err != nil {
		return Tools{}, "Cyclone DDS headers not installed: run `make deps` (cyclonedds-dev)", nil
	}
	h := sha256.New()
	for _, f := range []string{"ros2.idl", "pub.c", "sub.c"} {
		b, _ := sources.ReadFile("testdata/" + f)
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "edged-ddstest", hex.EncodeToString(h.Sum(nil))[:16])
	tools := Tools{Pub: filepath.Join(dir, "pub"), Sub: filepath.Join(dir, "sub")}
	if _, err := os.Stat(tools.Sub); err == nil {
		return tools, "", nil
	}
	return tools, "", compileInto(dir, tools)
}

// compileInto builds in a fresh directory and renames it into place, so
// concurrent test processes never see half-built programs.
func compileInto(dir string, tools Tools) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"ros2.idl", "pub.c", "sub.c"} {
		b, _ := sources.ReadFile("testdata/" + f)
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return err
		}
	}
	steps := [][]string{
		{"idlc", "-o", tmp, filepath.Join(tmp, "ros2.idl")},
		{"gcc", "-O2", "-o", filepath.Join(tmp, "pub"), filepath.Join(tmp, "pub.c"), filepath.Join(tmp, "ros2.c"), "-I" + tmp, "-lddsc"},
		{"gcc", "-O2", "-o", filepath.Join(tmp, "sub"), filepath.Join(tmp, "sub.c"), filepath.Join(tmp, "ros2.c"), "-I" + tmp, "-lddsc"},
	}
	for _, s := range steps {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("ddstest: %s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(tools.Sub); serr != nil {
			return err
		}
	}
	return nil
}

// Domain returns a random domain id for one test (1..200).
func Domain() int { return 1 + rand.IntN(200) }

// Env is the environment of a process on the loopback test domain.
func Env() []string { return append(os.Environ(), "CYCLONEDDS_URI="+dds.LoopbackConfig) }

// Proc is a running test program.
type Proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan struct{}
}

// Start runs a test program with args on domain (-d is added) and kills
// it in t.Cleanup.
func Start(t testing.TB, bin string, domain int, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-d", fmt.Sprint(domain)}, args...)...)
	cmd.Env = Env()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proc{cmd: cmd, stdin: stdin, lines: make(chan string, 64), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { p.Kill() })
	return p
}

// WaitLine waits (up to 30s) for an output line starting with prefix and
// returns it.
func (p *Proc) WaitLine(t testing.TB, prefix string) string {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("ddstest: %s exited before printing %q", p.cmd.Path, prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout.C:
			t.Fatalf("ddstest: timed out waiting for %q from %s", prefix, p.cmd.Path)
		}
	}
}

// Stop closes the program's stdin (it leaves the domain and exits) and
// waits for it.
func (p *Proc) Stop() error {
	p.stdin.Close()
	<-p.done
	return p.cmd.Wait()
}

// Kill ends the program at once (a crashed publisher) and reaps it.
func (p *Proc) Kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Kill()
	<-p.done
	p.cmd.Wait()
}

// MsgDir writes the .msg definitions of the test types edged does not
// bundle (edged_test_msgs, which pub -k task publishes) into a directory
// laid out PKG/msg/TYPE.msg, as ros2.msg_dirs wants, and returns it.
func MsgDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	sub, err := fs.Sub(msgs, "testdata/msg")
	if err == nil {
		err = os.CopyFS(dir, sub)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// LoopbackURI is CYCLONEDDS_URI for a process (or a test's own
// participants created without a config) on the loopback test domain.
func LoopbackURI() string { return dds.LoopbackConfig }
