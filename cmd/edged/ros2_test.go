//go:build cgo && !purego

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/ros2/ddstest"
)

// TestROS2Tools: edged topics and edged echo on a live ROS 2 graph, as a
// ROS 2 user runs them: the domain from ROS_DOMAIN_ID (or --domain),
// node names from ros_discovery_info, and a user type decoded from
// --msg-dir. A ROS_DOMAIN_ID that is not a domain id is an error (edged
// joined domain 0 and listed nothing).
func TestROS2Tools(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with Cyclone DDS publishers; skipped with -short")
	}
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	domain := ddstest.Domain()
	task := ddstest.Start(t, tools.Pub, domain, "-t", "/task/status", "-k", "task", "-N", "/robot/controller", "-n", "1000000", "-p", "20",
		"-v", "reach,grasp")
	task.WaitLine(t, "ready")

	t.Setenv("ROS_DOMAIN_ID", fmt.Sprint(domain))
	out := edged(t, true, "topics", "--ros2", "--discovery", "3s")
	if !strings.Contains(out, "/task/status") || !strings.Contains(out, "edged_test_msgs/msg/TaskStatus") || !strings.Contains(out, "/robot/controller") {
		t.Errorf("topics on ROS_DOMAIN_ID=%d:\n%s", domain, out)
	}
	out = edged(t, true, "echo", "--ros2", "--msg-dir", ddstest.MsgDir(t), "--count", "2", "/task/status")
	if !strings.Contains(out, "phase") || !(strings.Contains(out, "reach") || strings.Contains(out, "grasp")) {
		t.Errorf("echo of a user type:\n%s", out)
	}

	t.Setenv("ROS_DOMAIN_ID", "robot7")
	if out := edged(t, false, "topics", "--ros2", "--discovery", "1s"); !strings.Contains(out, "ROS_DOMAIN_ID") {
		t.Errorf("a bad ROS_DOMAIN_ID: %s", out)
	}
	if out := edged(t, false, "topics", "--ros2", "--domain", "999"); !strings.Contains(out, "--domain: must be 0..232") {
		t.Errorf("--domain 999: %s", out)
	}
	out = edged(t, true, "topics", "--ros2", "--domain", fmt.Sprint(domain), "--discovery", "3s")
	if !strings.Contains(out, "/task/status") {
		t.Errorf("--domain over a bad ROS_DOMAIN_ID:\n%s", out)
	}
}
