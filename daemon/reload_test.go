package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestReloadAddsACameraAndKeepsTheEpisode: a reload that adds a camera
// subscribes it without closing the open episode.
func TestReloadAddsACameraAndKeepsTheEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	m := rostest.StartMaster(t)
	m.Publish("--name", "fsm_pub", "--topic", "/task/state", "--kind", "string", "--rate", "20")
	m.Publish("--name", "cam_a_pub", "--topic", "/cam_a/compressed", "--kind", "compressed", "--rate", "10")
	m.Publish("--name", "cam_b_pub", "--topic", "/cam_b/compressed", "--kind", "compressed", "--rate", "10")
	dir := t.TempDir()
	yaml := func(cams string) string {
		return fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\nhttp: {listen: \"off\"}\n"+
			"joints: [{topic: /joint_states}]\ncameras: [%s]\nfsm: [{topic: /task/state, idle_states: [IDLE]}]\n",
			filepath.Join(dir, "data"), m.URI, cams)
	}
	cfg, err := config.Parse([]byte(yaml("{topic: /cam_a/compressed}")))
	if err != nil {
		t.Fatal(err)
	}
	next := yaml("{topic: /cam_a/compressed}, {topic: /cam_b/compressed}")
	reload := make(chan struct{})
	d, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Reload: reload,
		LoadConfig: func() (*config.Config, error) { return config.Parse([]byte(next)) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- d.Run(ctx) }()
	stopped := false
	defer func() {
		if !stopped {
			cancel()
			<-runErr
		}
	}()

	rostest.WaitFor(t, 30*time.Second, "an episode open", d.status.episodeOpen)
	before := d.status.view().Episode.ID
	reload <- struct{}{}
	rostest.WaitFor(t, 30*time.Second, "frames from the added camera", func() bool {
		c := d.capt.Load()
		if c == nil {
			return false
		}
		for _, s := range c.Stats() {
			if s.Topic == "/cam_b/compressed" && s.Messages > 0 {
				return true
			}
		}
		return false
	})
	if got := d.status.view().Episode.ID; got != before || !d.status.episodeOpen() {
		t.Fatalf("episode %s (open %v) after reload, want %s still open", got, d.status.episodeOpen(), before)
	}
	if n := len(d.topo.Load().cams); n != 2 {
		t.Fatalf("%d cameras after reload, want 2", n)
	}
	ms, err := episode.List(filepath.Join(dir, "data", "episodes"))
	if err != nil || len(ms) != 1 || ms[0].Closed {
		t.Fatalf("episodes after reload: %+v, %v; want the one open episode", ms, err)
	}

	// Stopping (SIGTERM in edged run) closes the open episode as
	// interrupted, with its open segment.
	cancel()
	stopped = true
	if err := <-runErr; err != nil {
		t.Fatalf("Run: %v", err)
	}
	ep, err := episode.Load(filepath.Join(dir, "data", "episodes"), ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	last := ep.Segments[len(ep.Segments)-1]
	if !ep.Manifest.Closed || ep.Manifest.Outcome != episode.Interrupted || last.Outcome != episode.Interrupted {
		t.Fatalf("after stop: manifest %+v, last segment %+v; want both interrupted", ep.Manifest, last)
	}
}
