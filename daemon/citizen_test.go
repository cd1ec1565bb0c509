package daemon

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRunAsANamespacedNodeEndsOnRosnodeKill: edged run started as
// roslaunch starts a node (__ns:=, __name:=) resolves its relative
// topics in the namespace and records from them; `rosnode kill` ends it
// within 2 s with ErrROSShutdown (exit status 3), the open episode
// closed as interrupted (issue 11: the shutdown was only logged).
func TestRunAsANamespacedNodeEndsOnRosnodeKill(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	rostest.Require(t, "rosnode")
	m := rostest.StartMaster(t)
	m.Publish("--name", "fsm_pub", "--topic", "/robot1/task/state", "--kind", "string", "--rate", "20")
	m.Publish("--name", "cam_pub", "--topic", "/robot1/cam/compressed", "--kind", "compressed", "--rate", "10")
	dir := t.TempDir()
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\n"+
		"http: {listen: \"off\"}\njoints: [{topic: joint_states}]\ncameras: [{topic: cam/compressed}]\n"+
		"fsm: [{topic: task/state, idle_states: [IDLE]}]\n", filepath.Join(dir, "data"), m.URI))
	d, run := runDaemon(t, cfg, Options{ROSArgs: ros.Args{Namespace: "robot1", Name: "edged3"}})
	rostest.WaitFor(t, 30*time.Second, "an episode open from /robot1/task/state", d.pipe.Status().EpisodeOpen)
	if d.node.Name() != "/robot1/edged3" {
		t.Fatalf("node name %s, want /robot1/edged3", d.node.Name())
	}

	// Timed from rosnode kill's return (the node has taken the request
	// by then), not from the Python tool's start, slow on a loaded machine.
	kill := rostest.Start(t, m.Env(), "rosnode", "kill", "/robot1/edged3")
	if err := kill.Wait(30 * time.Second); err != nil {
		t.Fatalf("rosnode kill: %v\n%s", err, kill.Output())
	}
	returned, err := run.wait(runTimeout)
	if !returned {
		t.Fatalf("edged kept running %v after rosnode kill", runTimeout)
	}
	if !errors.Is(err, ErrROSShutdown) {
		t.Fatalf("Run returned %v, want ErrROSShutdown", err)
	}
	ms, err := episode.List(filepath.Join(dir, "data", "episodes"))
	if err != nil || len(ms) == 0 {
		t.Fatalf("episodes: %+v, %v", ms, err)
	}
	ep, err := episode.Load(filepath.Join(dir, "data", "episodes"), ms[len(ms)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !ep.Manifest.Closed || ep.Manifest.Outcome != episode.Interrupted {
		t.Fatalf("after rosnode kill: manifest %+v; want closed as interrupted", ep.Manifest)
	}
}
