package capture

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/edged-robotics/edged/ros2/cdr"
)

// manyJoints is a JointState of n one-letter joints and no values: the
// finding's name flood (125,000 names fit the 1 MiB state message cap).
func manyJoints(n int, withValues bool) []byte {
	w := (&wire{}).header(wallNow).u32(uint32(n))
	for range n {
		w.str("j")
	}
	if !withValues {
		return w.u32(0).u32(0).u32(0).b
	}
	w.u32(uint32(n))
	for range n {
		w.f64(1)
	}
	return w.u32(0).u32(0).b
}

// A JointState over MaxJoints joints is dropped and counted, not handed
// to the joint sink, whose ring kept every one (a writer of 125,000
// names at 20 Hz grew edged by 900 MB in 22 s, with no drop counted).
func TestTooManyJointsDropped(t *testing.T) {
	cases := []struct {
		name      string
		maxJoints int
		body      []byte
		kept      bool
	}{
		{"default cap, a flood of names", 0, manyJoints(125_000, false), false},
		{"default cap, a big robot", 0, manyJoints(DefaultMaxJoints, true), true},
		{"set cap, one over", 8, manyJoints(9, true), false},
		{"set cap, at it", 8, manyJoints(8, true), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, Config{Joints: []string{"/joint_states"}, SimTime: SimTimeOff, MaxJoints: c.maxJoints}, newFakeNode())
			h.send("/joint_states", message("/joint_states", pubJoints, c.body, wallNow))
			h.send("/joint_states", message("/joint_states", pubJoints, jointBody(wallNow), wallNow)) // the honest robot
			s := h.stats("/joint_states")
			wantDrops := uint64(0)
			if !c.kept {
				wantDrops = 1
			}
			if s.TooManyJoints != wantDrops || s.Drops != wantDrops || uint64(len(h.rec.joints)) != 2-wantDrops {
				t.Errorf("stats %+v, %d samples kept; want %d dropped", s, len(h.rec.joints), wantDrops)
			}
			if last := h.rec.joints[len(h.rec.joints)-1]; fmt.Sprint(last.Names) != "[elbow wrist]" {
				t.Errorf("the honest sample after it: %v", last.Names)
			}
			h.rel.check(t, h.sent)
		})
	}
}

// typedNode is a fakeNode that subscribes by type, as the ROS 2 one does.
type typedNode struct {
	*fakeNode
	types map[string][]string
	miss  uint64
}

func (n *typedNode) Subscribe(ctx context.Context, o SubscribeOptions) (Subscription, error) {
	n.mu.Lock()
	if n.types == nil {
		n.types = map[string][]string{}
	}
	n.types[o.Topic] = o.Types
	n.mu.Unlock()
	s, err := n.fakeNode.Subscribe(ctx, o)
	if err != nil {
		return nil, err
	}
	return mismatchSub{s.(*fakeSub), n.miss}, nil
}

type mismatchSub struct {
	*fakeSub
	n uint64
}

func (s mismatchSub) Mismatched() uint64 { return s.n }

// Every role subscribes with the types it can use (a writer of another
// type that appears first used to decide the type of the topic's
// reader), and the writers of other types the subscription saw show in
// the topic's stats.
func TestRolesSubscribeByType(t *testing.T) {
	node := &typedNode{fakeNode: newFakeNode(), miss: 2}
	cfg := Config{Cameras: []string{"/cam"}, Joints: []string{"/joint_states"}, SimTime: SimTimeOn,
		FSM: []FSMTopic{{Topic: "/task/state", Types: []string{cdr.TypeString}}, {Topic: "/task/status", Dynamic: true}}}
	c, err := New(cfg, node, Sinks{Frames: &recorder{}, Joints: &recorder{}, States: &recorder{}}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := map[string][]string{
		"/cam":          {cdr.TypeCompressedImage, cdr.TypeImage},
		"/joint_states": {cdr.TypeJointState},
		"/clock":        {cdr.TypeClock},
		"/task/state":   {cdr.TypeString},
		"/task/status":  nil,
	}
	for topic, types := range want {
		if got, ok := node.types[topic]; !ok || !slices.Equal(got, types) {
			t.Errorf("%s subscribed with types %v (%v), want %v", topic, got, ok, types)
		}
	}
	for _, s := range c.Stats() {
		if s.WrongTypeWriters != 2 {
			t.Errorf("%s: WrongTypeWriters %d, want the subscription's 2", s.Topic, s.WrongTypeWriters)
		}
	}
}
