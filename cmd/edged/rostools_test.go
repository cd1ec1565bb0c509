package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
)

// edgedWithin runs the binary with env for at most d and returns its
// stdout, stderr and error (a deadline kill is no error: the tools run
// until interrupted).
func edgedWithin(t *testing.T, env []string, d time.Duration, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, edgedBin, args...)
	cmd.Env = env
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		err = nil
	}
	return o.String(), e.String(), err
}

// TestEchoAndTopicsAsROSTools: edged echo and edged topics against a
// real master (issue 11): anonymous node names so two sessions coexist,
// --bytes, --max-message, an error for a dead master, a note for a topic
// nobody publishes, and topics without publishers hidden unless --all.
func TestEchoAndTopicsAsROSTools(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	rostest.RequireRospy(t)
	m := rostest.StartMaster(t)
	env := m.Env()

	t.Run("dead master", func(t *testing.T) {
		dead := fmt.Sprintf("http://127.0.0.1:%d/", rostest.FreePort(t))
		_, stderr, err := edgedWithin(t, env, 30*time.Second, "echo", "--master", dead, "/x")
		if err == nil || !strings.Contains(stderr, "does not answer") {
			t.Fatalf("echo with a dead master: %v\n%s", err, stderr)
		}
	})

	m.Publish("--name", "img_pub", "--topic", "/img", "--kind", "rgb8", "--rate", "10")
	t.Run("two sessions and --bytes", func(t *testing.T) {
		type result struct {
			out string
			err error
		}
		results := make(chan result, 2)
		for _, extra := range [][]string{nil, {"--bytes"}} {
			go func() {
				out, _, err := edgedWithin(t, env, 30*time.Second, append([]string{"echo", "--count", "3", "--json", "/img"}, extra...)...)
				results <- result{out, err}
			}()
		}
		var summarized, full bool
		for range 2 {
			r := <-results
			if r.err != nil || strings.Count(r.out, "\n") != 3 {
				t.Fatalf("an echo session: %v, %d lines (two sessions must not evict each other)\n%s", r.err, strings.Count(r.out, "\n"), r.out)
			}
			summarized = summarized || strings.Contains(r.out, `"data":{"bytes":9216}`)
			full = full || strings.Contains(r.out, `"data":[`)
		}
		if !summarized || !full {
			t.Errorf("want one session summarizing the image data and the --bytes one printing it: %v %v", summarized, full)
		}
	})
	t.Run("max message", func(t *testing.T) {
		out, stderr, err := edgedWithin(t, env, 4*time.Second, "echo", "--max-message", "1KiB", "/img")
		if err != nil || out != "" || !strings.Contains(stderr, "connection errors") {
			t.Fatalf("--max-message 1KiB on 9 KiB images: %v\nstdout %q\nstderr %s", err, out, stderr)
		}
	})
	t.Run("no publisher", func(t *testing.T) {
		_, stderr, err := edgedWithin(t, env, 3*time.Second, "echo", "/nobody")
		if err != nil || !strings.Contains(stderr, "no node publishes /nobody yet") {
			t.Fatalf("echo of an unpublished topic: %v\n%s", err, stderr)
		}
	})
	t.Run("topics", func(t *testing.T) {
		// A node that published /gone and left: the master keeps its type.
		c := m.Client("/gone_pub")
		ctx := context.Background()
		if err := c.RegisterPublisher(ctx, "/gone", "std_msgs/String", "http://127.0.0.1:1/"); err != nil {
			t.Fatal(err)
		}
		if err := c.UnregisterPublisher(ctx, "/gone", "http://127.0.0.1:1/"); err != nil {
			t.Fatal(err)
		}
		out, _, err := edgedWithin(t, env, 30*time.Second, "topics")
		if err != nil || !strings.Contains(out, "/img") || strings.Contains(out, "/gone") {
			t.Fatalf("topics: %v\n%s", err, out)
		}
		out, _, err = edgedWithin(t, env, 30*time.Second, "topics", "--all")
		if err != nil || !strings.Contains(out, "/gone") {
			t.Fatalf("topics --all: %v\n%s", err, out)
		}
	})
}
