package capture

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rostest"
)

// Every subscription is bounded in bytes as well as in count, with a
// small message cap for the state roles (the finding: a state queue of
// 1024 x 64 MiB took 8-9 GB).
func TestQueueBytesByRole(t *testing.T) {
	cases := []struct {
		name                 string
		cfg                  Config
		camBytes, camMax     int
		stateBytes, stateMax int
	}{
		{"defaults", Config{}, DefaultQueueBytes, 64 << 20, DefaultStateQueueBytes, DefaultMaxStateMessageBytes},
		{"set", Config{QueueBytes: 300 << 20, MaxMessageBytes: 100 << 20, StateQueueBytes: 4 << 20, MaxStateMessageBytes: 64 << 10},
			300 << 20, 100 << 20, 4 << 20, 64 << 10},
		{"a large cap raises the default budget", Config{MaxMessageBytes: 200 << 20}, 200 << 20, 200 << 20, DefaultStateQueueBytes, DefaultMaxStateMessageBytes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := newFakeNode()
			node.simTime = true
			cfg := tc.cfg
			cfg.Cameras, cfg.Joints, cfg.FSM = []string{"/cam"}, []string{"/j"}, []FSMTopic{{Topic: "/s"}}
			rec := &recorder{}
			c, err := New(cfg, node, Sinks{Frames: rec, Joints: rec, States: rec}, Options{Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			node.mu.Lock()
			defer node.mu.Unlock()
			check := func(topic string, bytes, maxMsg int) {
				o := node.opts[topic]
				if o.QueueBytes != bytes || o.MaxMessageBytes != maxMsg {
					t.Errorf("%s: QueueBytes %d MaxMessageBytes %d, want %d %d", topic, o.QueueBytes, o.MaxMessageBytes, bytes, maxMsg)
				}
			}
			check("/cam", tc.camBytes, tc.camMax)
			for _, topic := range []string{"/j", "/s", "/clock"} {
				check(topic, tc.stateBytes, tc.stateMax)
			}
		})
	}
}

func TestValidateBounds(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Joints: []string{"/j"}, QueueBytes: 1 << 20}, "ros.queue_bytes: must be >= ros.max_message"},
		{Config{Joints: []string{"/j"}, StateQueueBytes: 1 << 10}, "ros.state_queue_bytes: must be >= ros.max_state_message"},
		{Config{Joints: []string{"/j"}, MaxStateMessageBytes: -1}, "ros.max_state_message: must be >= 1KiB"},
		{Config{Joints: []string{"/j"}, StateQueueBytes: -1}, "ros.state_queue_bytes: must be >= 0"},
	}
	for _, tc := range cases {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if err := (Config{}).Validate(); !errors.Is(err, ErrNoTopics) {
		t.Errorf("no topics: %v, want ErrNoTopics", err)
	}
}

// A replayed state message over the state cap is dropped and counted,
// as live capture would never have received it (the finding: a 60 MiB
// message decoded to 2.6 GB in edged replay).
func TestReplayCapsStateMessages(t *testing.T) {
	rec := &recorder{}
	r, err := NewReplay(Config{FSM: []FSMTopic{{Topic: "/task"}}, MaxStateMessageBytes: 1024}, Sinks{States: rec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1700000000, 0)
	big := make([]byte, 2000)
	for _, data := range [][]byte{(&wire{}).str(string(big)).b, (&wire{}).str("PICK").b} {
		if err := r.Handle("/task", pubString, data, at); err != nil {
			t.Fatal(err)
		}
	}
	s := r.Stats()[0]
	if s.OversizeDrops != 1 || s.Drops != 1 || s.Events != 1 || rec.count() != 1 {
		t.Errorf("stats %+v, %d events", s, rec.count())
	}
}

// Started before the master, capture switches to sim time once the
// master is up with /use_sim_time true (the finding: it never did).
func TestSimTimeWhenMasterAppearsLater(t *testing.T) {
	rostest.Require(t, "rosmaster")
	port := rostest.FreePort(t)
	ctx := context.Background()
	node, err := ros.NewNode(ctx, ros.Config{MasterURI: fmt.Sprintf("http://127.0.0.1:%d/", port), NodeName: "/edged_sim_test",
		Host: "127.0.0.1", Logger: quiet, MasterPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	sink := newLiveSink()
	c, err := New(Config{FSM: []FSMTopic{{Topic: "/task"}}}, FromROS1(node), Sinks{States: sink}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if c.SimTime() {
		t.Fatal("sim time without a master")
	}
	m := rostest.StartMasterOnPort(t, port)
	if err := m.Client("/test").SetParam(ctx, "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	rostest.WaitFor(t, 10*time.Second, "sim time", c.SimTime)
	rostest.WaitFor(t, 10*time.Second, "the clock topic to be registered", func() bool {
		st, err := m.Client("/check").GetSystemState(ctx)
		return err == nil && len(st.Subscribers["/clock"]) == 1
	})
	if s := c.Stats(); len(s) != 2 || s[1].Role != RoleClock {
		t.Errorf("stats %+v", s)
	}
	if _, ok := c.Now(); ok {
		t.Error("a clock before any /clock message")
	}
	if err := m.Client("/test").SetParam(ctx, "/use_sim_time", false); err != nil {
		t.Fatal(err)
	}
	rostest.WaitFor(t, 10*time.Second, "the wall clock again", func() bool { return !c.SimTime() })
}
