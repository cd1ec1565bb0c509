package capture

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
)

var quiet = slog.New(slog.DiscardHandler)

var wallNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type harness struct {
	t    *testing.T
	node *fakeNode
	rec  *recorder
	rel  *releases
	c    *Capture
	sent []*ros.Message
}

func start(t *testing.T, cfg Config, node *fakeNode) *harness {
	t.Helper()
	h := &harness{t: t, node: node, rec: &recorder{}, rel: &releases{}}
	c, err := New(cfg, node, Sinks{Frames: h.rec, Joints: h.rec, States: h.rec}, Options{Now: func() time.Time { return wallNow }, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c.onRelease = h.rel.hook
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.c = c
	t.Cleanup(func() { _ = c.Close() })
	return h
}

// send delivers m on topic and waits until capture has handled it.
func (h *harness) send(topic string, m *ros.Message) {
	h.t.Helper()
	h.sent = append(h.sent, m)
	before := h.handled(topic)
	h.node.sub(h.t, topic).ch <- m
	poll.Until(h.t, 5*time.Second, "message on "+topic, func() bool { return h.handled(topic) > before })
}

// handled counts messages capture has finished with on topic.
func (h *harness) handled(topic string) uint64 {
	for _, s := range h.c.Stats() {
		if s.Topic == topic {
			return s.Events + s.DecodeErrors + s.UnknownType + s.NoClockDrops + s.TooManyJoints
		}
	}
	return 0
}

func (h *harness) stats(topic string) TopicStats {
	for _, s := range h.c.Stats() {
		if s.Topic == topic {
			return s
		}
	}
	h.t.Fatalf("no stats for %s", topic)
	return TopicStats{}
}

func TestStamps(t *testing.T) {
	cases := []struct {
		name     string
		skew     time.Duration
		header   time.Time
		received time.Time
		want     time.Time
		src      StampSource
	}{
		{"plausible header", 0, wallNow.Add(-40 * time.Millisecond), wallNow, wallNow.Add(-40 * time.Millisecond), StampHeader},
		{"zero header", 0, time.Time{}, wallNow, wallNow, StampReceive},
		{"header from a bag day", 0, wallNow.Add(-24 * time.Hour), wallNow, wallNow, StampReceive},
		{"header in the future", 0, wallNow.Add(11 * time.Minute), wallNow, wallNow, StampReceive},
		{"within default skew", 0, wallNow.Add(-9 * time.Minute), wallNow, wallNow.Add(-9 * time.Minute), StampHeader},
		{"tight skew rejects", time.Second, wallNow.Add(-2 * time.Second), wallNow, wallNow, StampReceive},
		{"no receive time: capture clock", 0, time.Time{}, time.Time{}, wallNow, StampReceive},
		{"unix epoch 1s", 0, time.Unix(1, 0), wallNow, wallNow, StampReceive},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, Config{Joints: []string{"/joints"}, MaxStampSkew: tc.skew, SimTime: SimTimeOff}, newFakeNode())
			h.send("/joints", message("/joints", pubJoints, jointBody(tc.header), tc.received))
			j := h.rec.joints[0]
			if !j.Stamp.Equal(tc.want) || j.StampSource != tc.src {
				t.Errorf("stamp %v (%v), want %v (%v)", j.Stamp, j.StampSource, tc.want, tc.src)
			}
			if want := tc.received; !want.IsZero() && !j.Received.Equal(want) {
				t.Errorf("received %v, want %v", j.Received, want)
			}
			if got := h.stats("/joints").ReceiveStamps; (got == 1) != (tc.src == StampReceive) {
				t.Errorf("ReceiveStamps %d", got)
			}
		})
	}
}

func TestSimTime(t *testing.T) {
	for _, param := range []any{true, 1, "true"} {
		node := newFakeNode()
		node.simTime = param
		h := start(t, Config{Joints: []string{"/joints"}, FSM: []FSMTopic{{Topic: "/task"}}}, node)
		if !h.c.SimTime() || node.order[0] != "/clock" {
			t.Fatalf("param %v: sim %v, subscribed %v (want /clock first)", param, h.c.SimTime(), node.order)
		}
		if _, ok := h.c.Now(); ok {
			t.Fatal("capture clock valid before the first /clock")
		}
		bagTime := time.Unix(1776842526, 0)
		// before the first /clock: a header stamp is kept, no stamp is dropped
		h.send("/joints", message("/joints", pubJoints, jointBody(bagTime), wallNow))
		h.send("/task", message("/task", pubString, (&wire{}).str("idle").b, wallNow))
		if len(h.rec.joints) != 1 || !h.rec.joints[0].Stamp.Equal(bagTime) || len(h.rec.states) != 0 {
			t.Fatalf("before /clock: joints %+v states %d", h.rec.joints, len(h.rec.states))
		}
		if s := h.stats("/task"); s.NoClockDrops != 1 || s.Drops != 1 {
			t.Errorf("no-clock drop not counted: %+v", s)
		}
		h.send("/clock", message("/clock", pubClock, (&wire{}).stamp(bagTime.Add(time.Second)).b, wallNow))
		if now, ok := h.c.Now(); !ok || !now.Equal(bagTime.Add(time.Second)) {
			t.Fatalf("Now() = %v %v", now, ok)
		}
		h.send("/task", message("/task", pubString, (&wire{}).str("reach").b, wallNow))
		st := h.rec.states[0]
		if !st.Stamp.Equal(bagTime.Add(time.Second)) || st.StampSource != StampReceive || !st.Received.Equal(bagTime.Add(time.Second)) {
			t.Errorf("string under sim time: %+v", st)
		}
		// a wall-clock header stamp is implausible on the bag's clock
		h.send("/joints", message("/joints", pubJoints, jointBody(wallNow), wallNow))
		if j := h.rec.joints[1]; !j.Stamp.Equal(bagTime.Add(time.Second)) || j.StampSource != StampReceive {
			t.Errorf("wall stamp under sim time: %+v", j)
		}
		h.send("/joints", message("/joints", pubJoints, jointBody(bagTime.Add(900*time.Millisecond)), wallNow))
		if j := h.rec.joints[2]; j.StampSource != StampHeader {
			t.Errorf("bag stamp under sim time: %+v", j)
		}
		_ = h.c.Close()
		h.rel.check(t, h.sent)
	}
	node := newFakeNode()
	node.simTime = false
	h := start(t, Config{Joints: []string{"/joints"}}, node)
	if h.c.SimTime() || len(node.order) != 1 {
		t.Errorf("use_sim_time false: sim %v, subscribed %v", h.c.SimTime(), node.order)
	}
	h = start(t, Config{Joints: []string{"/joints"}}, newFakeNode())
	if h.c.SimTime() {
		t.Error("unset use_sim_time: sim time on")
	}
	h = start(t, Config{Joints: []string{"/joints"}, SimTime: SimTimeOn, ClockTopic: "/sim/clock"}, newFakeNode())
	if !h.c.SimTime() || h.node.order[0] != "/sim/clock" {
		t.Errorf("SimTimeOn: %v %v", h.c.SimTime(), h.node.order)
	}
}

// noParams is a Node of a middleware without a parameter server (ROS 2):
// Subscribe only.
type noParams struct{ n *fakeNode }

func (p noParams) Subscribe(ctx context.Context, o SubscribeOptions) (Subscription, error) {
	return p.n.Subscribe(ctx, o)
}

// A Node without parameters is never asked for /use_sim_time: under
// SimTimeAuto it runs on the wall clock, under SimTimeOn on /clock.
func TestSimTimeWithoutParams(t *testing.T) {
	for _, tc := range []struct {
		sim      SimTime
		wantSim  bool
		wantSubs []string
	}{
		{SimTimeAuto, false, []string{"/joints"}},
		{SimTimeOn, true, []string{"/clock", "/joints"}},
		{SimTimeOff, false, []string{"/joints"}},
	} {
		fake := newFakeNode()
		fake.simTime = true // not asked: Params is not offered
		c, err := New(Config{Joints: []string{"/joints"}, SimTime: tc.sim}, noParams{fake}, Sinks{Joints: &recorder{}}, Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c.SimTime() != tc.wantSim || !slices.Equal(fake.order, tc.wantSubs) {
			t.Errorf("sim_time %v: sim %v, subscribed %v; want %v, %v", tc.sim, c.SimTime(), fake.order, tc.wantSim, tc.wantSubs)
		}
		_ = c.Close()
	}
}

func TestCameraRole(t *testing.T) {
	stamp := wallNow.Add(-time.Second)
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2}
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0}
	cases := []struct {
		name    string
		pub     *ros.PublisherInfo
		body    []byte
		format  FrameFormat
		enc     string
		w, h    int
		outcome string // event, decode, unknown
	}{
		{"rgb8", pubImage, imageBody(stamp, 4, 2, "rgb8"), FormatRaw, "rgb8", 4, 2, "event"},
		{"bgr8", pubImage, imageBody(stamp, 2, 2, "bgr8"), FormatRaw, "bgr8", 2, 2, "event"},
		{"bayer", pubImage, imageBody(stamp, 2, 1, "bayer_bggr8"), FormatRaw, "bayer_bggr8", 2, 1, "event"},
		{"jpeg", pubCompressed, compressedBody(stamp, "jpeg", jpeg), FormatJPEG, "jpeg", 0, 0, "event"},
		{"image_transport jpeg", pubCompressed, compressedBody(stamp, "rgb8; jpeg compressed bgr8", jpeg), FormatJPEG, "rgb8; jpeg compressed bgr8", 0, 0, "event"},
		{"png", pubCompressed, compressedBody(stamp, "png", png), FormatPNG, "png", 0, 0, "event"},
		{"bgr8 png compressed", pubCompressed, compressedBody(stamp, "bgr8; png compressed ", png), FormatPNG, "bgr8; png compressed ", 0, 0, "event"},
		{"empty format, jpeg magic", pubCompressed, compressedBody(stamp, "", jpeg), FormatJPEG, "", 0, 0, "event"},
		{"compressedDepth", pubCompressed, compressedBody(stamp, "16UC1; compressedDepth png", png), 0, "", 0, 0, "unknown"},
		{"theora-ish format", pubCompressed, compressedBody(stamp, "theora", []byte{1, 2, 3}), 0, "", 0, 0, "unknown"},
		{"truncated image", pubImage, imageBody(stamp, 4, 2, "rgb8")[:30], 0, "", 0, 0, "decode"},
		{"data shorter than height*step", pubImage, shortImage(stamp), 0, "", 0, 0, "decode"},
		{"joint state on a camera", pubJoints, jointBody(stamp), 0, "", 0, 0, "unknown"},
		{"no publisher info", nil, imageBody(stamp, 1, 1, "rgb8"), 0, "", 0, 0, "unknown"},
		{"same name, other md5", &ros.PublisherInfo{Type: msg.TypeImage, MD5Sum: "0123"}, imageBody(stamp, 1, 1, "rgb8"), 0, "", 0, 0, "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, newFakeNode())
			m := message("/cam", tc.pub, tc.body, wallNow)
			h.send("/cam", m)
			s := h.stats("/cam")
			switch tc.outcome {
			case "event":
				f := h.rec.frames[0]
				if f.Format != tc.format || f.Encoding != tc.enc || f.Width != tc.w || f.Height != tc.h ||
					f.Topic != "/cam" || !f.Stamp.Equal(stamp) || f.StampSource != StampHeader {
					t.Errorf("frame %+v", f)
				}
				if tc.format == FormatRaw && (f.Step != 3*tc.w || len(h.rec.copies[0]) != 3*tc.w*tc.h) {
					t.Errorf("raw layout: step %d, %d bytes", f.Step, len(h.rec.copies[0]))
				}
				if s.Events != 1 {
					t.Errorf("stats %+v", s)
				}
			case "decode":
				if s.DecodeErrors != 1 || h.rec.count() != 0 {
					t.Errorf("decode error not counted: %+v", s)
				}
			case "unknown":
				if s.UnknownType != 1 || h.rec.count() != 0 {
					t.Errorf("unknown type not counted: %+v", s)
				}
			}
			if s.Messages != 1 {
				t.Errorf("Messages %d", s.Messages)
			}
			h.rel.check(t, h.sent)
		})
	}
}

func shortImage(stamp time.Time) []byte {
	// 4x4 rgb8 claims step 12 but carries 12 bytes: one row
	w := (&wire{}).header(stamp).u32(4).u32(4).str("rgb8").u8(0).u32(12).u32(12)
	return append(w.b, make([]byte, 12)...)
}

// TestFrameAliasesMessage: the frame's Data is the message's buffer and
// the message is released only when the sink releases the frame.
func TestFrameAliasesMessage(t *testing.T) {
	node := newFakeNode()
	h := &harness{t: t, node: node, rec: &recorder{keep: true}, rel: &releases{}}
	c, err := New(Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, node, Sinks{Frames: h.rec}, Options{Now: func() time.Time { return wallNow }, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c.onRelease = h.rel.hook
	h.c = c
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := imageBody(wallNow, 2, 2, "mono8")
	m := message("/cam", pubImage, body, wallNow)
	h.send("/cam", m)
	f := h.rec.frames[0]
	if &f.Data[0] != &body[len(body)-12] {
		t.Error("Frame.Data is a copy, want an alias of the message body")
	}
	if h.rel.n[m] != 0 {
		t.Fatal("message released before the frame")
	}
	f.Release()
	f.Release() // a second call is a no-op
	h.rel.check(t, h.sent)
}

func TestJointsRole(t *testing.T) {
	h := start(t, Config{Joints: []string{"/joint_states"}, SimTime: SimTimeOff}, newFakeNode())
	h.send("/joint_states", message("/joint_states", pubJoints, jointBody(wallNow), wallNow))
	h.send("/joint_states", message("/joint_states", pubJoints, jointBody(wallNow)[:20], wallNow))
	h.send("/joint_states", message("/joint_states", pubString, (&wire{}).str("x").b, wallNow))
	h.send("/joint_states", message("/joint_states", pubJoints, jointBody(wallNow), wallNow))
	j := h.rec.joints[0]
	if len(h.rec.joints) != 2 || strings.Join(j.Names, ",") != "elbow,wrist" || j.Position[1] != -1 ||
		j.Velocity != nil || j.Effort[1] != 2 || j.Topic != "/joint_states" {
		t.Fatalf("joints %+v", h.rec.joints)
	}
	if &h.rec.joints[0].Position[0] == &h.rec.joints[1].Position[0] {
		t.Error("samples share a slice: the receiver must own each")
	}
	s := h.stats("/joint_states")
	if s.Messages != 4 || s.Events != 2 || s.DecodeErrors != 1 || s.UnknownType != 1 || s.Type != msg.TypeJointState {
		t.Errorf("stats %+v", s)
	}
	h.rel.check(t, h.sent)
}

func TestFSMRole(t *testing.T) {
	stamp := wallNow.Add(-time.Second)
	smach := (&wire{}).header(stamp).str("/SM").u32(1).str("INIT").u32(1).str("GRASP").str("\x80\x04pickle\xff").str("").b
	goals := (&wire{}).header(stamp).u32(1).stamp(stamp).str("g1").u8(msg.GoalActive).str("going").b
	cases := []struct {
		name    string
		dynamic bool
		pub     *ros.PublisherInfo
		body    []byte
		check   func(t *testing.T, e StateEvent)
		outcome string
	}{
		{"string", false, pubString, (&wire{}).str("grasp").b, func(t *testing.T, e StateEvent) {
			if s, ok := e.Value.(*msg.String); !ok || s.Data != "grasp" || e.StampSource != StampReceive || e.Type != msg.TypeString {
				t.Errorf("%+v", e)
			}
		}, "event"},
		{"smach", false, pubSmach, smach, func(t *testing.T, e StateEvent) {
			s, ok := e.Value.(*msg.SmachContainerStatus)
			if !ok || s.ActiveStates[0] != "GRASP" || s.LocalData != "\x80\x04pickle\xff" || !e.Stamp.Equal(stamp) {
				t.Errorf("%+v", e)
			}
		}, "event"},
		{"actionlib", false, pubGoals, goals, func(t *testing.T, e StateEvent) {
			a, ok := e.Value.(*msg.GoalStatusArray)
			if !ok || a.StatusList[0].Text != "going" || e.StampSource != StampHeader {
				t.Errorf("%+v", e)
			}
		}, "event"},
		{"custom type, dynamic with header", false, pubPhase, phaseBody(stamp, "lift"), func(t *testing.T, e StateEvent) {
			v, ok := e.Value.(*msg.Value)
			if !ok {
				t.Fatalf("%T", e.Value)
			}
			if p, err := v.Get("status.phase"); err != nil || p != "lift" || !e.Stamp.Equal(stamp) || e.StampSource != StampHeader {
				t.Errorf("%v %v %+v", p, err, e)
			}
		}, "event"},
		{"string forced dynamic", true, pubString, (&wire{}).str("idle").b, func(t *testing.T, e StateEvent) {
			v, ok := e.Value.(*msg.Value)
			if !ok {
				t.Fatalf("%T", e.Value)
			}
			if d, _ := v.Get("data"); d != "idle" || e.StampSource != StampReceive {
				t.Errorf("%+v", e)
			}
		}, "event"},
		{"truncated smach", false, pubSmach, smach[:len(smach)-3], nil, "decode"},
		{"bad custom definition", false, &ros.PublisherInfo{Type: "a/B", MessageDefinition: "Missing m\n"}, []byte{1}, nil, "decode"},
		{"custom type without definition", false, &ros.PublisherInfo{Type: "a/B"}, []byte{1}, nil, "unknown"},
		{"custom type, wrong length", false, pubPhase, phaseBody(stamp, "lift")[:10], nil, "decode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, Config{FSM: []FSMTopic{{Topic: "/task", Dynamic: tc.dynamic}}, SimTime: SimTimeOff}, newFakeNode())
			h.send("/task", message("/task", tc.pub, tc.body, wallNow))
			s := h.stats("/task")
			switch tc.outcome {
			case "event":
				if len(h.rec.states) != 1 {
					t.Fatalf("no event; stats %+v", s)
				}
				tc.check(t, h.rec.states[0])
			case "decode":
				if s.DecodeErrors != 1 || h.rec.count() != 0 {
					t.Errorf("stats %+v", s)
				}
			case "unknown":
				if s.UnknownType != 1 || h.rec.count() != 0 {
					t.Errorf("stats %+v", s)
				}
			}
			h.rel.check(t, h.sent)
		})
	}
}

func TestStatsFromSubscription(t *testing.T) {
	h := start(t, Config{Cameras: []string{"/cam"}, Joints: []string{"/j"}, FSM: []FSMTopic{{Topic: "/task"}}, SimTime: SimTimeOff}, newFakeNode())
	sub := h.node.sub(t, "/cam")
	sub.mu.Lock()
	sub.stats = ros.SubscriptionStats{Messages: 10, Bytes: 1000, Drops: 3, Reconnects: 2, Publishers: 1, Errors: 1}
	sub.mu.Unlock()
	st := h.c.Stats()
	if len(st) != 3 || st[0].Role != RoleCamera || st[1].Role != RoleJoints || st[2].Role != RoleFSM {
		t.Fatalf("stats order %+v", st)
	}
	if s := st[0]; s.Bytes != 1000 || s.Drops != 3 || s.SubscriptionDrops != 3 || s.Reconnects != 2 || s.Publishers != 1 || s.Errors != 1 {
		t.Errorf("camera stats %+v", s)
	}
}

func TestStartFailureAndClose(t *testing.T) {
	node := newFakeNode()
	node.failOn = "/j"
	rec := &recorder{}
	c, err := New(Config{Cameras: []string{"/cam"}, Joints: []string{"/j"}, SimTime: SimTimeOff}, node, Sinks{Frames: rec, Joints: rec}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "/j") {
		t.Fatalf("Start: %v", err)
	}
	if !node.sub(t, "/cam").closed.Load() {
		t.Error("the subscription made before the failure was not closed")
	}
	if err := c.Start(context.Background()); err == nil {
		t.Error("second Start accepted")
	}
	_ = c.Close()

	// Close releases what is still queued, and is idempotent
	node = newFakeNode()
	rel := &releases{}
	c, err = New(Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, node, Sinks{Frames: rec}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c.onRelease = rel.hook
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel() // the caller's context ending does not stop capture: Close does
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	queued := message("/cam", pubImage, imageBody(wallNow, 1, 1, "rgb8"), wallNow)
	node.sub(t, "/cam").ch <- queued
	c.drain(node.sub(t, "/cam"))
	rel.check(t, []*ros.Message{queued})
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

func TestNewChecks(t *testing.T) {
	rec := &recorder{}
	if _, err := New(Config{Cameras: []string{"/cam"}}, newFakeNode(), Sinks{Joints: rec}, Options{}); err == nil {
		t.Error("cameras without a frame sink accepted")
	}
	if _, err := New(Config{FSM: []FSMTopic{{Topic: "/t"}}}, newFakeNode(), Sinks{}, Options{}); err == nil {
		t.Error("fsm without a state sink accepted")
	}
	if _, err := New(Config{Joints: []string{"/j"}}, nil, Sinks{Joints: rec}, Options{}); err == nil {
		t.Error("nil node accepted")
	}
	if _, err := New(Config{}, newFakeNode(), Sinks{}, Options{}); err == nil {
		t.Error("no topics accepted")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string // "" valid
	}{
		{Config{Cameras: []string{"/cam"}}, ""},
		{Config{Cameras: []string{"cam"}}, `cameras[0].topic: "cam" is not a global ROS name`},
		{Config{Cameras: []string{"/a", ""}}, "cameras[1].topic: required"},
		{Config{Joints: []string{"/j j"}}, `joints[0].topic: "/j j" is not a ROS graph name`},
		// ros.CheckName's rule: a part starts with a letter (capture
		// took /cam/0, which the master refuses)
		{Config{Cameras: []string{"/cam/0"}}, `cameras[0].topic: "/cam/0" is not a ROS graph name`},
		{Config{Joints: []string{"/j"}, FSM: []FSMTopic{{Topic: "/j", Field: "episode.recording_topic"}}}, "episode.recording_topic: topic /j is already used by joints[0].topic"},
		{Config{Cameras: []string{"/x"}, FSM: []FSMTopic{{Topic: "/x"}}}, "fsm[0].topic: topic /x is already used by cameras[0].topic"},
		{Config{Joints: []string{"/j"}, MaxStampSkew: -1}, "max_stamp_skew: must be >= 0"},
		{Config{Joints: []string{"/j"}, SimTime: 7}, "sim_time:"},
		{Config{Joints: []string{"/j"}, ClockTopic: "clock"}, `clock_topic: "clock" is not a global ROS name`},
		{Config{Joints: []string{"/clock"}}, "clock_topic: /clock is also configured"},
		{Config{Joints: []string{"/clock"}, SimTime: SimTimeOff}, ""},
		{Config{Joints: []string{"/j"}, QueueSize: -1}, "ros.queue_size: must be in 1..10000"},
		{Config{Joints: []string{"/j"}, QueueSize: 10001}, "ros.queue_size: must be in 1..10000"},
		{Config{Joints: []string{"/j"}, StateQueueSize: 100001}, "ros.state_queue_size: must be in 1..100000"},
		{Config{Joints: []string{"/j"}, MaxMessageBytes: -5}, "ros.max_message: must be >= 1KiB"},
		{Config{Joints: []string{"/j"}, MaxMessageBytes: 512}, "ros.max_message: must be >= 1KiB"},
		{Config{}, "no topics to capture"},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.cfg, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if d := (Config{}).withDefaults(); d.MaxStampSkew != DefaultMaxStampSkew || d.ClockTopic != "/clock" {
		t.Errorf("defaults %+v", d)
	}
}

func TestDiscover(t *testing.T) {
	topics := []TopicType{
		{"/cam_high/image_raw", msg.TypeImage},
		{"/cam_high/image_raw/compressed", msg.TypeCompressedImage},
		{"/wrist/image_raw", msg.TypeImage},
		{"/camera/depth/image_raw", msg.TypeImage},
		{"/camera/aligned_depth_to_color/image_raw/compressedDepth", msg.TypeCompressedImage},
		{"/cam_high/image_raw/theora", "theora_image_transport/Packet"},
		{"/joint_states", msg.TypeJointState},
		{"/arm/joint_states", msg.TypeJointState},
		{"/task_state", msg.TypeString},
		{"/wrist/image_raw", msg.TypeImage},
	}
	cams, joints := Discover(topics)
	if strings.Join(cams, " ") != "/cam_high/image_raw/compressed /wrist/image_raw" {
		t.Errorf("cameras %v", cams)
	}
	if strings.Join(joints, " ") != "/arm/joint_states /joint_states" {
		t.Errorf("joints %v", joints)
	}
	if c, j := Discover(nil); c != nil || j != nil {
		t.Errorf("empty: %v %v", c, j)
	}
}

func TestRoleAndSourceStrings(t *testing.T) {
	for r, want := range map[Role]string{RoleCamera: "camera", RoleJoints: "joints", RoleFSM: "fsm", RoleClock: "clock", 9: "unknown"} {
		if r.String() != want {
			t.Errorf("%d: %s", r, r.String())
		}
	}
	if !errors.Is(nil, nil) {
		t.Fatal()
	}
}

// TestQueueSizesByRole: cameras get QueueSize; joints, FSM and /clock,
// small and fast (and the FSM the ground truth), get StateQueueSize.
func TestQueueSizesByRole(t *testing.T) {
	cases := []struct {
		name        string
		cfg         Config
		cam, states int
	}{
		{"defaults", Config{}, 0, DefaultStateQueueSize},
		{"set", Config{QueueSize: 4, StateQueueSize: 99}, 4, 99},
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
			want := map[string]int{"/cam": tc.cam, "/j": tc.states, "/s": tc.states, "/clock": tc.states}
			node.mu.Lock()
			defer node.mu.Unlock()
			for topic, q := range want {
				if node.queues[topic] != q {
					t.Errorf("%s: queue %d, want %d", topic, node.queues[topic], q)
				}
			}
		})
	}
}
