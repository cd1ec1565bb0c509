package ros

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/xmlrpc"
)

func TestSubscribeRospyKinds(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	kinds := []struct {
		kind, typ string
		minSize   int
	}{
		{"rgb8", "sensor_msgs/Image", 64 * 48 * 3},
		{"bgr8", "sensor_msgs/Image", 64 * 48 * 3},
		{"mono8", "sensor_msgs/Image", 64 * 48},
		{"compressed", "sensor_msgs/CompressedImage", 1004},
		{"joints", "sensor_msgs/JointState", 7 * 3 * 8},
		{"string", "std_msgs/String", len("hello 0")},
	}
	subs := map[string]*Subscription{}
	for _, k := range kinds {
		topic := "/test/" + k.kind
		subs[k.kind] = subscribe(t, n, SubscribeOptions{Topic: topic, QueueSize: 100})
		m.Publish("--name", "pub_"+k.kind, "--topic", topic, "--kind", k.kind, "--rate", "20")
	}
	for _, k := range kinds {
		msgs := receive(t, subs[k.kind], 3, 30*time.Second)
		for _, g := range msgs {
			if g.typ != k.typ || g.size < k.minSize || g.callerID != "/pub_"+k.kind || g.def == "" || g.latching {
				t.Errorf("%s: type %s size %d caller %s latching %v", k.kind, g.typ, g.size, g.callerID, g.latching)
			}
		}
		if st := subs[k.kind].Stats(); st.Publishers != 1 || st.Connects != 1 || st.Errors != 0 {
			t.Errorf("%s: stats %+v", k.kind, st)
		}
	}
	// A String's body is a uint32 length and the bytes.
	last := receive(t, subs["string"], 1, 10*time.Second)[0]
	if !strings.HasPrefix(string(last.data[4:]), "hello ") {
		t.Errorf("string body %q", last.data)
	}
}

func TestLatchedTopic(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	p := m.Publish("--name", "latcher", "--topic", "/latched", "--kind", "string", "--count", "1", "--latch")
	rostest.WaitFor(t, 30*time.Second, "the latched message to be published", func() bool {
		return strings.Contains(p.Output(), "published 1")
	})
	n := startNode(t, m.URI)
	s := subscribe(t, n, SubscribeOptions{Topic: "/latched"})
	g := receive(t, s, 1, 20*time.Second)[0]
	if !g.latching || string(g.data[4:]) != "hello 0" {
		t.Fatalf("got latching %v data %q", g.latching, g.data)
	}
}

// Node first, then master, then publisher: everything must connect.
func TestStartBeforeMasterAndPublishers(t *testing.T) {
	requireROS(t)
	port := rostest.FreePort(t)
	uri := "http://127.0.0.1:" + itoa(port) + "/"
	n := startNode(t, uri)
	s := subscribe(t, n, SubscribeOptions{Topic: "/late"})
	if n.MasterUp() {
		t.Fatal("master reported up before it started")
	}
	m := rostest.StartMasterOnPort(t, port)
	rostest.WaitFor(t, 10*time.Second, "the node to see the master", n.MasterUp)
	m.Publish("--name", "late_pub", "--topic", "/late", "--kind", "string", "--rate", "20")
	receive(t, s, 3, 30*time.Second)
}

func TestPublisherRestart(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	s := subscribe(t, n, SubscribeOptions{Topic: "/restart", QueueSize: 100})
	p := m.Publish("--name", "restarter", "--topic", "/restart", "--kind", "joints", "--rate", "50")
	receive(t, s, 3, 30*time.Second)
	p.Kill()
	rostest.WaitFor(t, 10*time.Second, "the connection to drop", func() bool { return s.Stats().Publishers == 0 })
	m.Publish("--name", "restarter", "--topic", "/restart", "--kind", "joints", "--rate", "50")
	rostest.WaitFor(t, 30*time.Second, "a second connection", func() bool { return s.Stats().Connects >= 2 })
	drain(s)
	receive(t, s, 3, 20*time.Second)
	rostest.WaitFor(t, 10*time.Second, "the dead publisher to be forgotten", func() bool { return len(s.Publishers()) == 1 })
}

func drain(s *Subscription) {
	for {
		select {
		case m := <-s.Messages():
			m.Release()
		default:
			return
		}
	}
}

func TestMasterRestart(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	s := subscribe(t, n, SubscribeOptions{Topic: "/survivor", QueueSize: 100})
	m.Publish("--name", "first", "--topic", "/survivor", "--kind", "string", "--rate", "20")
	receive(t, s, 2, 30*time.Second)
	simTime := make(chan any, 4)
	if _, err := n.SubscribeParam(context.Background(), "/use_sim_time", func(v any) { simTime <- v }); err != nil {
		t.Fatal(err)
	}
	m.Kill()
	rostest.WaitFor(t, 10*time.Second, "the node to notice the master is gone", func() bool { return !n.MasterUp() })
	m.Start()
	rostest.WaitFor(t, 10*time.Second, "the node to re-register", func() bool {
		st, err := m.Client("/check").GetSystemState(context.Background())
		return err == nil && len(st.Subscribers["/survivor"]) == 1 && st.Subscribers["/survivor"][0] == "/edged"
	})
	// The old connection survives the master; a new publisher is found.
	m.Publish("--name", "second", "--topic", "/survivor", "--kind", "string", "--rate", "20")
	rostest.WaitFor(t, 30*time.Second, "both publishers connected", func() bool {
		drain(s)
		return s.Stats().Publishers == 2
	})
	if st := n.Status(); !st.MasterUp || st.MasterPid != m.Pid() || st.Subscriptions != 1 {
		t.Fatalf("status %+v", st)
	}
	// The parameter watch was registered again too.
	if err := m.Client("/check").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-simTime:
		if v != true {
			t.Fatalf("paramUpdate %v", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no paramUpdate after the master restarted")
	}
}

func TestRosnodeInfoAndPing(t *testing.T) {
	requireROS(t)
	rostest.Require(t, "rosnode")
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	s := subscribe(t, n, SubscribeOptions{Topic: "/info_topic"})
	m.Publish("--name", "info_pub", "--topic", "/info_topic", "--kind", "string", "--rate", "10")
	receive(t, s, 1, 30*time.Second)
	run := func(args ...string) string {
		cmd := exec.Command("rosnode", args...)
		cmd.Env = append(cmd.Environ(), m.Env()...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rosnode %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	info := run("info", "/edged")
	t.Logf("rosnode info /edged:\n%s", info)
	for _, want := range []string{"Node [/edged]", "/info_topic [std_msgs/String]", "Pid:", "topic: /info_topic", "to: /info_pub", "direction: inbound", "transport: TCPROS"} {
		if !strings.Contains(info, want) {
			t.Errorf("rosnode info lacks %q:\n%s", want, info)
		}
	}
	ping := run("ping", "-c", "1", "/edged")
	if !strings.Contains(ping, "reply from "+n.URI()) {
		t.Errorf("rosnode ping:\n%s", ping)
	}
}

func TestSlaveAPI(t *testing.T) {
	requireROS(t)
	m := rostest.StartMaster(t)
	n := startNode(t, m.URI)
	subscribe(t, n, SubscribeOptions{Topic: "/api_topic"})
	ctx := context.Background()
	c := xmlrpc.NewClient(n.URI())
	call := func(method string, params ...any) any {
		v, err := master.Call(ctx, c, method, params...)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return v
	}
	// getPid answers with a status message, as rospy does (rosnode ping
	// and rosnode info print it).
	v, err := c.Call(ctx, "getPid", "/t")
	raw, _ := v.([]any)
	if err != nil || len(raw) != 3 || raw[1] == "" || raw[2] != os.Getpid() {
		t.Errorf("getPid = %v, %v; want [1, a status, pid]", raw, err)
	}
	if v := call("getMasterUri", "/t"); v != m.URI {
		t.Errorf("getMasterUri = %v", v)
	}
	if v := call("getSubscriptions", "/t").([]any); len(v) != 1 || v[0].([]any)[0] != "/api_topic" {
		t.Errorf("getSubscriptions = %v", v)
	}
	if v := call("getPublications", "/t").([]any); len(v) != 0 {
		t.Errorf("getPublications = %v", v)
	}
	if v := call("getBusStats", "/t").([]any); len(v) != 3 {
		t.Errorf("getBusStats = %v", v)
	}
	var se *master.StatusError
	if _, err := master.Call(ctx, c, "requestTopic", "/t", "/api_topic", []any{[]any{"TCPROS"}}); !asStatus(err, &se) || se.Code != -1 {
		t.Errorf("requestTopic: %v", err)
	}
	if _, err := master.Call(ctx, c, "publisherUpdate", "/t", "/api_topic", "not a list"); !asStatus(err, &se) {
		t.Errorf("bad publisherUpdate: %v", err)
	}
	call("publisherUpdate", "/master", "/unknown_topic", []any{})

	updates := make(chan any, 16)
	if v, err := n.SubscribeParam(ctx, "/use_sim_time", func(v any) { updates <- v }); err != nil || v != nil {
		t.Fatalf("SubscribeParam = %v, %v", v, err)
	}
	if err := m.Client("/t").SetParam(ctx, "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	// The master watcher may report the unset value (nil) first, when
	// its first registration races SubscribeParam: wait for true.
	for v := any(nil); v != true; {
		select {
		case v = <-updates:
			if v != nil && v != true {
				t.Fatalf("paramUpdate value %v", v)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no paramUpdate")
		}
	}
	if v, err := n.GetParam(ctx, "use_sim_time"); err != nil || v != true {
		t.Fatalf("GetParam = %v, %v", v, err)
	}
	select {
	case <-n.Shutdown():
		t.Fatal("Shutdown closed before any request")
	default:
	}
	call("shutdown", "/t", "test")
	select {
	case <-n.Shutdown():
	case <-time.After(10 * time.Second):
		t.Fatal("a shutdown call did not close Shutdown()")
	}
	if r := n.ShutdownReason(); !strings.Contains(r, "/t") || !strings.Contains(r, "test") {
		t.Errorf("ShutdownReason = %q", r)
	}
}
