package ros

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rosout"
	"github.com/edged-robotics/edged/ros/rostest"
)

// shutdownWithin fails t unless n is asked to shut down within d.
func shutdownWithin(t *testing.T, n *Node, d time.Duration) {
	t.Helper()
	select {
	case <-n.Shutdown():
	case <-time.After(d):
		t.Fatalf("the node was not asked to shut down within %s", d)
	}
}

// `rosnode kill /edged` ends the node: roscpp's rule, not a log line.
func TestRosnodeKill(t *testing.T) {
	requireROS(t)
	rostest.Require(t, "rosnode")
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	subscribe(t, n, SubscribeOptions{Topic: "/kill_me"})
	rostest.WaitFor(t, 10*time.Second, "the node to register", func() bool {
		uri, err := m.Client("/t").LookupNode(context.Background(), "/edged")
		return err == nil && uri != ""
	})
	// rosnode kill returns once the node answered its shutdown call; the
	// node must have taken it by then (timed from there, not from the
	// Python tool's start, which a loaded machine makes slow).
	kill := rostest.Start(t, m.Env(), "rosnode", "kill", "/edged")
	if err := kill.Wait(30 * time.Second); err != nil {
		t.Fatalf("rosnode kill: %v\n%s", err, kill.Output())
	}
	shutdownWithin(t, n, 2*time.Second)
	if r := n.ShutdownReason(); !strings.Contains(r, "rosnode") {
		t.Errorf("reason %q does not say who asked", r)
	}
}

// A newer node of the same name wins, as in ROS: the master shuts the
// older one down, and the older one never takes the name back.
func TestNewerNodeOfSameNameWins(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	cfg := testConfig(m.URI)
	cfg.ResolveInterval = 200 * time.Millisecond // re-registers often: a chance to steal the name back
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	subscribe(t, n, SubscribeOptions{Topic: "/same_name"})
	rostest.WaitFor(t, 10*time.Second, "the node to register", func() bool {
		uri, _ := m.Client("/t").LookupNode(context.Background(), "/edged")
		return sameURI(uri, n.URI())
	})
	newer := m.Publish("--name", "edged", "--topic", "/other", "--kind", "string", "--rate", "5")
	shutdownWithin(t, n, 15*time.Second)
	// Ten resolve intervals later the newer node still owns the name.
	deadline := time.Now().Add(10 * cfg.ResolveInterval)
	for time.Now().Before(deadline) {
		uri, err := m.Client("/t").LookupNode(context.Background(), "/edged")
		if err == nil && sameURI(uri, n.URI()) {
			t.Fatal("the older node registered its name again")
		}
		if newer.Exited() {
			t.Fatalf("the newer node was shut down: %s", newer.Output())
		}
		time.Sleep(cfg.ResolveInterval / 2)
	}
}

// /rosout: a rospy subscriber (rostopic echo) receives edged's log
// records, decoded with the md5sum and definition edged announces.
func TestRosoutReachesRostopic(t *testing.T) {
	requireROS(t)
	rostest.Require(t, "rostopic")
	m := rostest.StartMaster(t)
	h := rosout.New(slog.NewTextHandler(discard{}, nil), slog.LevelInfo)
	n := startNode(t, m.URI)
	pub, err := n.Advertise(PublishOptions{Topic: rosout.Topic, Type: rosout.Type, MD5Sum: rosout.MD5Sum,
		Definition: rosout.Definition, Latch: true})
	if err != nil {
		t.Fatal(err)
	}
	h.Attach(pub, n.Name(), []string{pub.Topic()}, nil)
	slog.New(h).Warn("hello rosout", "camera", "front")
	echo := rostest.Start(t, m.Env(), "rostopic", "echo", "-n", "1", "/rosout")
	if err := echo.Wait(30 * time.Second); err != nil {
		t.Fatalf("rostopic echo: %v\n%s", err, echo.Output())
	}
	out := echo.Output()
	for _, want := range []string{"level: 4", `name: "/edged"`, `msg: "hello rosout camera=front"`} {
		if !strings.Contains(out, want) {
			t.Errorf("rostopic echo /rosout lacks %q:\n%s", want, out)
		}
	}
	if st := pub.Stats(); st.Published != 1 {
		t.Errorf("stats %+v", st)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// ROS_HOSTNAME comes before ROS_IP, as rospy decides: both nodes started
// with both set advertise the same host.
func TestHostPrecedenceAsRospy(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	env := append(m.Env(), "ROS_HOSTNAME=localhost") // m.Env sets ROS_IP=127.0.0.1
	py := rostest.Start(t, env, rostest.Python, "-c",
		"import rospy; rospy.init_node('host_probe', disable_signals=True); print('URI', rospy.get_node_uri(), flush=True)")
	if err := py.Wait(30 * time.Second); err != nil {
		t.Fatalf("rospy: %v\n%s", err, py.Output())
	}
	if !strings.Contains(py.Output(), "URI http://localhost:") {
		t.Fatalf("rospy advertised %q; the test's premise is wrong", py.Output())
	}
	t.Setenv("ROS_IP", "127.0.0.1")
	t.Setenv("ROS_HOSTNAME", "localhost")
	cfg := testConfig(m.URI)
	cfg.Host = ""
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !strings.HasPrefix(n.URI(), "http://localhost:") {
		t.Fatalf("edged advertises %s, rospy localhost", n.URI())
	}
}

// _param:=value arguments are set under the node's name, typed as rospy
// reads them.
func TestPrivateParams(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	cfg := testConfig(m.URI)
	cfg.PrivateParams = map[string]string{"rate": "10", "mode": "fast"}
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := m.Client("/t")
	rostest.WaitFor(t, 10*time.Second, "the private parameters", func() bool {
		rate, err1 := c.GetParam(context.Background(), "/edged/rate")
		mode, err2 := c.GetParam(context.Background(), "/edged/mode")
		return err1 == nil && err2 == nil && rate == 10 && mode == "fast"
	})
}

// rosconsole's logger services: rosservice (rospy) reads the level with
// get_loggers and changes it with set_logger_level.
func TestLoggerLevelServices(t *testing.T) {
	requireROS(t)
	rostest.Require(t, "rosservice")
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	var level slog.LevelVar
	if err := n.ServeLogLevel(&level); err != nil {
		t.Fatal(err)
	}
	rostest.WaitFor(t, 10*time.Second, "the services registered", func() bool {
		st, err := m.Client("/t").GetSystemState(context.Background())
		return err == nil && len(st.Services["/edged/set_logger_level"]) > 0
	})
	get := rostest.Start(t, m.Env(), "rosservice", "call", "/edged/get_loggers")
	if err := get.Wait(30 * time.Second); err != nil || !strings.Contains(get.Output(), `name: "edged"`) ||
		!strings.Contains(get.Output(), `level: "info"`) {
		t.Fatalf("get_loggers: %v\n%s", err, get.Output())
	}
	set := rostest.Start(t, m.Env(), "rosservice", "call", "/edged/set_logger_level", "edged", "debug")
	if err := set.Wait(30 * time.Second); err != nil || level.Level() != slog.LevelDebug {
		t.Fatalf("set_logger_level: %v, level %v\n%s", err, level.Level(), set.Output())
	}
	bad := rostest.Start(t, m.Env(), "rosservice", "call", "/edged/set_logger_level", "edged", "loud")
	if err := bad.Wait(30 * time.Second); err == nil || !strings.Contains(bad.Output(), "want debug") {
		t.Fatalf("a bad level was not refused: %v\n%s", err, bad.Output())
	}
}
