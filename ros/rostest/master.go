package rostest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/master"
)

// Master is a rosmaster started for one test.
type Master struct {
	URI  string
	Port int
	Home string // ROS_HOME and ROS_LOG_DIR of every process of the test

	t    testing.TB
	proc *Proc
}

// StartMaster starts `rosmaster --core` on a free loopback port and waits
// until it answers getPid.
func StartMaster(t testing.TB) *Master {
	t.Helper()
	Require(t, "rosmaster")
	home := t.TempDir()
	m := &Master{Home: home, t: t}
	m.Port = FreePort(t)
	m.URI = fmt.Sprintf("http://127.0.0.1:%d/", m.Port)
	m.Start()
	return m
}

// Env is the environment for a ROS process of this test.
func (m *Master) Env() []string {
	return []string{
		"ROS_MASTER_URI=" + m.URI,
		"ROS_HOME=" + m.Home,
		"ROS_LOG_DIR=" + filepath.Join(m.Home, "log"),
		"ROS_IP=127.0.0.1",
		"PYTHONUNBUFFERED=1",
	}
}

// Start (re)starts the master on its port and waits until it answers.
func (m *Master) Start() {
	m.t.Helper()
	m.proc = Start(m.t, m.Env(), "rosmaster", "--core", "-p", itoa(m.Port), "-w", "2")
	c := master.New(m.URI, "/rostest", time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := c.GetPid(context.Background()); err == nil {
			return
		}
		if m.proc.Exited() {
			m.t.Fatalf("rosmaster exited: %s", m.proc.Output())
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("rosmaster on port %d did not answer within 30s: %s", m.Port, m.proc.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills the master (SIGKILL, as a crash would).
func (m *Master) Kill() { m.proc.Kill() }

// Pid is the master's process id.
func (m *Master) Pid() int { return m.proc.Pid() }

// Client returns a master API client speaking as callerID.
func (m *Master) Client(callerID string) *master.Client {
	return master.New(m.URI, callerID, 5*time.Second)
}

// Python runs a rospy script (a path) with args against this master.
func (m *Master) Python(script string, args ...string) *Proc {
	m.t.Helper()
	RequireRospy(m.t)
	return Start(m.t, m.Env(), Python, append([]string{script}, args...)...)
}

// Publish runs the bundled rospy publisher (scripts/pub.py) with args:
//
//	--name NODE --topic TOPIC --kind rgb8|bgr8|mono8|compressed|joints|string
//	[--rate HZ] [--count N] [--latch] [--width W] [--height H]
//
// It prints "published N" after each message to stdout.
func (m *Master) Publish(args ...string) *Proc {
	m.t.Helper()
	return m.Python(m.script("pub.py"), args...)
}

func (m *Master) script(name string) string {
	m.t.Helper()
	path := filepath.Join(m.Home, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	data, err := scripts.ReadFile("scripts/" + name)
	if err != nil {
		m.t.Fatalf("bundled script %s: %v", name, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		m.t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

// StartMasterOnPort starts a master on a given port (e.g. one a node was
// told about before the master existed).
func StartMasterOnPort(t testing.TB, port int) *Master {
	t.Helper()
	Require(t, "rosmaster")
	m := &Master{Home: t.TempDir(), t: t, Port: port, URI: fmt.Sprintf("http://127.0.0.1:%d/", port)}
	m.Start()
	return m
}
