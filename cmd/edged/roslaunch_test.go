package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRoslaunchStartsEdged: roslaunch starts edged as any ROS node
// (issue 11: `__name:=` and the other arguments it appends were
// refused). A package directory on ROS_PACKAGE_PATH holds the edged
// binary; the launch file puts the node in a namespace with a name.
// The node registers under that name, its log reaches /rosout and the
// __log file, and `rosnode kill` ends it with exit status 3 within 2 s.
func TestRoslaunchStartsEdged(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with roslaunch; skipped with -short")
	}
	rostest.Require(t, "roslaunch", "rosnode", "rostopic", "rosservice")
	m := rostest.StartMaster(t)
	tmp := t.TempDir()
	pkg := filepath.Join(tmp, "pkgs", "edged_launch_test")
	must(t, os.MkdirAll(pkg, 0o755))
	must(t, os.WriteFile(filepath.Join(pkg, "package.xml"), []byte(`<?xml version="1.0"?>
<package format="2"><name>edged_launch_test</name><version>0.0.0</version>
<description>edged under roslaunch (test)</description><maintainer email="t@example.com">t</maintainer>
<license>MIT</license></package>
`), 0o644))
	must(t, os.Symlink(edgedBin, filepath.Join(pkg, "edged")))
	cfg := filepath.Join(tmp, "edged.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {host: 127.0.0.1}\nhttp: {listen: \"off\"}\n"+
		"cameras: [{topic: cam/compressed}]\njoints: [{topic: joint_states}]\nfsm: [{topic: task/state, idle_states: [IDLE]}]\n",
		filepath.Join(tmp, "data"))), 0o644))
	launch := filepath.Join(tmp, "edged.launch")
	must(t, os.WriteFile(launch, []byte(fmt.Sprintf(`<launch>
  <group ns="robot1">
    <node pkg="edged_launch_test" type="edged" name="edged3" args="run --config %s"/>
  </group>
</launch>
`, cfg)), 0o644))
	env := append(m.Env(), "ROS_PACKAGE_PATH="+filepath.Join(tmp, "pkgs"))
	rl := rostest.Start(t, env, "roslaunch", launch)
	defer rl.Stop(5 * time.Second)

	client := m.Client("/launch_test")
	rostest.WaitFor(t, 60*time.Second, "roslaunch to start /robot1/edged3", func() bool {
		uri, err := client.LookupNode(context.Background(), "/robot1/edged3")
		return err == nil && uri != ""
	})
	// rosconsole's services set the level: debug records then reach /rosout.
	set := rostest.Start(t, m.Env(), "rosservice", "call", "/robot1/edged3/set_logger_level", "edged", "debug")
	if err := set.Wait(30 * time.Second); err != nil {
		t.Errorf("rosservice call set_logger_level: %v\n%s", err, set.Output())
	}
	// edged logs why it stops: that record reaches rostopic on /rosout.
	echo := rostest.Start(t, m.Env(), "rostopic", "echo", "-n", "1", "/rosout")
	rostest.WaitFor(t, 30*time.Second, "rostopic to subscribe to /rosout", func() bool {
		st, err := client.GetSystemState(context.Background())
		return err == nil && len(st.Subscribers["/rosout"]) > 0
	})
	kill := rostest.Start(t, m.Env(), "rosnode", "kill", "/robot1/edged3")
	if err := kill.Wait(30 * time.Second); err != nil {
		t.Fatalf("rosnode kill: %v\n%s", err, kill.Output())
	}
	// Timed from rosnode kill's return; roslaunch polls its processes
	// every second, hence 2 s + 1 s.
	rostest.WaitFor(t, 3*time.Second, "roslaunch to report edged's exit (status 3) within 2 s", func() bool {
		return strings.Contains(rl.Output(), "exit code 3")
	})
	if err := echo.Wait(10 * time.Second); err != nil || !strings.Contains(echo.Output(), `name: "/robot1/edged3"`) ||
		!strings.Contains(echo.Output(), "asked this node to shut down") {
		t.Errorf("rostopic echo /rosout: %v\n%s", err, echo.Output())
	}
	logs, _ := filepath.Glob(filepath.Join(m.Home, "log", "*", "robot1-edged3*.log"))
	found := false
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		found = found || strings.Contains(string(b), "daemon: running")
	}
	if !found {
		t.Errorf("no __log file with edged's log among %v", logs)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
