// Package s3test starts a real S3 server for a test: versitygw, an S3
// gateway serving a local directory, built from the Go module proxy by
// scripts/versitygw.sh (once, into a cache directory) or named by
// EDGED_VERSITYGW. The test is skipped, saying why, when it cannot be
// built (no network and no cached binary).
package s3test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/freeport"
)

// Server is one running versitygw with one bucket.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Bucket   string
	Dir      string // the directory it serves (one subdirectory per bucket)
	// Env are the AWS variables that point a client at it.
	Env map[string]string

	bin, meta, port string
	log             *os.File
	mu              sync.Mutex // Stop may be called from the code under test
	cmd             *exec.Cmd
}

const access, secret = "edgedtest", "edgedtestsecret"

// Start starts versitygw on a free port with bucket "edged" and stops it
// when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binary(t)
	dir, meta := t.TempDir(), t.TempDir()
	s := &Server{Bucket: "edged", Dir: dir}
	if err := os.Mkdir(filepath.Join(dir, s.Bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	s.bin, s.meta, s.port = bin, meta, fmt.Sprintf("127.0.0.1:%d", freeport.Port(t))
	s.Endpoint = "http://" + s.port
	log, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.log = log
	t.Cleanup(func() { s.Stop(); log.Close() })
	s.start(t)
	s.Env = map[string]string{"AWS_ENDPOINT_URL": s.Endpoint, "AWS_ACCESS_KEY_ID": access,
		"AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1"}
	return s
}

// start runs versitygw on s's port and directories and waits until it
// listens.
func (s *Server) start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(s.bin, "--access", access, "--secret", secret, "--port", s.port,
		"posix", "--sidecar", s.meta, s.Dir)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(s.log.Name())
			t.Fatalf("versitygw did not start listening: %v\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond) // waiting for a child process to listen; nothing to poll but the port
	}
}

// Stop kills the server (a store gone down); its data stays for Restart.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the server again on the same port and data after Stop.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.start(t)
}

// Getenv reads s.Env (for s3.Options.Getenv).
func (s *Server) Getenv(k string) string { return s.Env[k] }

// SetEnv sets s.Env in the process environment for the test.
func (s *Server) SetEnv(t *testing.T) {
	for k, v := range s.Env {
		t.Setenv(k, v)
	}
}

// URL is s3://BUCKET/prefix.
func (s *Server) URL(prefix string) string {
	return "s3://" + s.Bucket + "/" + strings.Trim(prefix, "/")
}

func binary(t testing.TB) string {
	if b := os.Getenv("EDGED_VERSITYGW"); b != "" {
		return b
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for ; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		if root == filepath.Dir(root) {
			t.Fatal("s3test: no go.mod above the test's directory")
		}
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "versitygw.sh")).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Skipf("versitygw could not be built from the Go module proxy (scripts/versitygw.sh: %v): %s", err, stderr)
	}
	return strings.TrimSpace(string(out))
}
