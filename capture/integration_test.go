package capture

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros/rostest"
)

// liveSink records events from real publishers; frames are copied and
// released at once, as a real sink does.
type liveSink struct {
	mu     sync.Mutex
	frames map[string][]Frame
	joints []JointSample
	states []StateEvent
}

func newLiveSink() *liveSink { return &liveSink{frames: map[string][]Frame{}} }

func (s *liveSink) PutFrame(f Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(f.Data)
	f.Release()
	f.Data = make([]byte, n) // keep the size only
	s.frames[f.Topic] = append(s.frames[f.Topic], f)
}
func (s *liveSink) PutJoints(j JointSample) {
	s.mu.Lock()
	s.joints = append(s.joints, j)
	s.mu.Unlock()
}
func (s *liveSink) PutState(e StateEvent) { s.mu.Lock(); s.states = append(s.states, e); s.mu.Unlock() }

func (s *liveSink) counts() (frames map[string]int, joints, states int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	frames = map[string]int{}
	for k, v := range s.frames {
		frames[k] = len(v)
	}
	return frames, len(s.joints), len(s.states)
}

func startLive(t *testing.T, m *rostest.Master, cfg Config, sink *liveSink) *Capture {
	t.Helper()
	ctx := context.Background()
	node, err := ros.NewNode(ctx, ros.Config{MasterURI: m.URI, NodeName: "/edged_capture_test", Host: "127.0.0.1", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	c, err := New(cfg, FromROS1(node), Sinks{Frames: sink, Joints: sink, States: sink}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestLiveCapture: rospy publishers of rgb8, mono8 and JPEG images,
// joints and a latched String, through a real rosmaster.
func TestLiveCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster and rospy publishers")
	}
	m := rostest.StartMaster(t)
	rostest.RequireRospy(t)
	sink := newLiveSink()
	c := startLive(t, m, Config{
		Cameras: []string{"/cam/rgb", "/cam/mono", "/cam/jpeg"},
		Joints:  []string{"/joint_states"},
		FSM:     []FSMTopic{{Topic: "/task_state"}},
	}, sink)
	if c.SimTime() {
		t.Fatal("sim time without /use_sim_time")
	}
	m.Publish("--name", "cam_rgb", "--topic", "/cam/rgb", "--kind", "rgb8", "--rate", "30", "--width", "64", "--height", "48")
	m.Publish("--name", "cam_mono", "--topic", "/cam/mono", "--kind", "mono8", "--rate", "30", "--width", "32", "--height", "24")
	m.Publish("--name", "cam_jpeg", "--topic", "/cam/jpeg", "--kind", "compressed", "--rate", "30")
	m.Publish("--name", "joints", "--topic", "/joint_states", "--kind", "joints", "--rate", "100")
	m.Publish("--name", "task", "--topic", "/task_state", "--kind", "string", "--rate", "5", "--latch")
	rostest.WaitFor(t, 60*time.Second, "events from every topic", func() bool {
		f, j, s := sink.counts()
		return f["/cam/rgb"] >= 5 && f["/cam/mono"] >= 5 && f["/cam/jpeg"] >= 5 && j >= 20 && s >= 2
	})
	sink.mu.Lock()
	rgb, mono, jpeg := sink.frames["/cam/rgb"][0], sink.frames["/cam/mono"][0], sink.frames["/cam/jpeg"][0]
	j, st := sink.joints[0], sink.states[0]
	sink.mu.Unlock()
	if rgb.Format != FormatRaw || rgb.Encoding != "rgb8" || rgb.Width != 64 || rgb.Height != 48 || rgb.Step != 192 ||
		len(rgb.Data) != 64*48*3 || rgb.StampSource != StampHeader {
		t.Errorf("rgb8 frame %+v", rgb)
	}
	if mono.Encoding != "mono8" || mono.Step != 32 || len(mono.Data) != 32*24 {
		t.Errorf("mono8 frame %+v", mono)
	}
	if jpeg.Format != FormatJPEG || jpeg.Encoding != "jpeg" || len(jpeg.Data) != 1004 {
		t.Errorf("jpeg frame %+v", jpeg)
	}
	if since := time.Since(rgb.Stamp); since < 0 || since > time.Minute {
		t.Errorf("rgb stamp %v is not recent", rgb.Stamp)
	}
	if len(j.Names) != 7 || j.Names[6] != "j6" || len(j.Position) != 7 || j.StampSource != StampHeader {
		t.Errorf("joints %+v", j)
	}
	if s, ok := st.Value.(*msg.String); !ok || !strings.HasPrefix(s.Data, "hello ") || st.StampSource != StampReceive {
		t.Errorf("state %+v", st)
	}
	for _, s := range c.Stats() {
		if s.Messages == 0 || s.Bytes == 0 || s.DecodeErrors != 0 || s.UnknownType != 0 || s.Publishers != 1 {
			t.Errorf("stats %+v", s)
		}
	}
}

// TestRosbagPlayClock: `rosbag play --clock` of the real G1 episode and
// of the real SMACH recording, with /use_sim_time true: every event is on
// the bag's clock.
func TestRosbagPlayClock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster and rosbag play")
	}
	g1 := sampledata.Path(t, "g1_ep29.bag")
	smach := sampledata.Path(t, "jsk_smach.bag")
	rostest.Require(t, "rosbag")
	m := rostest.StartMaster(t)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	sink := newLiveSink()
	c := startLive(t, m, Config{
		Cameras: []string{"/cam_high/image_raw/compressed"},
		Joints:  []string{"/joint_states"},
		FSM:     []FSMTopic{{Topic: "/task_state"}, {Topic: "/server_name/smach/container_status"}},
		// a loaded CI machine may stall for a second: do not drop
		QueueSize: 256,
	}, sink)
	if !c.SimTime() {
		t.Fatal("/use_sim_time true but capture is on the wall clock")
	}
	play := rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "-d", "1", "-r", "4", g1)
	if err := play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v", err)
	}
	bagStart := time.Unix(1776842526, 0)
	bagEnd := bagStart.Add(30 * time.Second)
	inBag := func(ts time.Time) bool { return !ts.Before(bagStart) && ts.Before(bagEnd) }
	t.Cleanup(func() {
		if t.Failed() {
			f, j, s := sink.counts()
			t.Logf("frames %v joints %d states %d; stats %+v", f, j, s, c.Stats())
		}
	})
	// 221 frames, 221 joint states, 7 task states in the bag; the first
	// messages may go out before the publisher connections are up.
	rostest.WaitFor(t, 10*time.Second, "g1 events", func() bool {
		f, j, s := sink.counts()
		return f["/cam_high/image_raw/compressed"] >= 200 && j >= 200 && s >= 6
	})
	sink.mu.Lock()
	for _, f := range sink.frames["/cam_high/image_raw/compressed"] {
		if !inBag(f.Stamp) || f.StampSource != StampHeader || f.Format != FormatJPEG {
			t.Fatalf("frame not on the bag clock: %+v", f)
		}
	}
	for _, j := range sink.joints {
		if !inBag(j.Stamp) || len(j.Names) != 26 {
			t.Fatalf("joints not on the bag clock: %+v", j)
		}
	}
	var labels []string
	for _, e := range sink.states {
		if !inBag(e.Stamp) || e.StampSource != StampReceive {
			t.Fatalf("state not on the bag clock: %+v", e)
		}
		labels = append(labels, e.Value.(*msg.String).Data)
	}
	sink.states = nil
	sink.mu.Unlock()
	if got := strings.Join(labels, ","); !strings.Contains(got, "reach") || !strings.HasSuffix(got, "done") {
		t.Errorf("task states %s", got)
	}
	now, ok := c.Now()
	if !ok || !inBag(now) {
		t.Errorf("capture clock %v after playback", now)
	}

	play = rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "-d", "1", "-r", "40", smach)
	if err := play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v", err)
	}
	rostest.WaitFor(t, 10*time.Second, "smach events", func() bool { _, _, s := sink.counts(); return s >= 7 })
	sink.mu.Lock()
	defer sink.mu.Unlock()
	var active []string
	for _, e := range sink.states {
		s, ok := e.Value.(*msg.SmachContainerStatus)
		if !ok || e.StampSource != StampHeader || e.Stamp.Year() != 2021 {
			t.Fatalf("smach event %+v", e)
		}
		active = append(active, s.ActiveStates...)
	}
	if got := strings.Join(active, ","); !strings.HasPrefix(got, "INIT,") || !strings.HasSuffix(got, "AUTO-DOCK") {
		t.Errorf("smach states %s", got)
	}
}

// TestLiveFSMTypes: actionlib GoalStatusArray typed, and a custom nested
// type (generated by genpy at run time) decoded from its definition.
func TestLiveFSMTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster and a rospy publisher")
	}
	m := rostest.StartMaster(t)
	sink := newLiveSink()
	c := startLive(t, m, Config{FSM: []FSMTopic{{Topic: "/move_base/status"}, {Topic: "/task/status"}}}, sink)
	script, err := filepath.Abs("testdata/pub_fsm.py")
	if err != nil {
		t.Fatal(err)
	}
	m.Python(script)
	byTopic := func() map[string][]StateEvent {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		out := map[string][]StateEvent{}
		for _, e := range sink.states {
			out[e.Topic] = append(out[e.Topic], e)
		}
		return out
	}
	rostest.WaitFor(t, 60*time.Second, "events on both topics", func() bool {
		b := byTopic()
		return len(b["/move_base/status"]) >= 3 && len(b["/task/status"]) >= 3
	})
	b := byTopic()
	g := b["/move_base/status"][0]
	if a, ok := g.Value.(*msg.GoalStatusArray); !ok || len(a.StatusList) != 1 || a.StatusList[0].Status != msg.GoalActive ||
		a.StatusList[0].Text != "going to the shelf" || g.StampSource != StampHeader {
		t.Errorf("goal status event %+v", g)
	}
	e := b["/task/status"][0]
	v, ok := e.Value.(*msg.Value)
	if !ok {
		t.Fatalf("custom type arrived as %T", e.Value)
	}
	if p, err := v.Get("status.phase"); err != nil || p != "reach" && p != "grasp" && p != "lift" {
		t.Errorf("status.phase = %v (%v)", p, err)
	}
	if p, err := v.Get("progress[-1]"); err != nil || p != 1.0 {
		t.Errorf("progress[-1] = %v (%v)", p, err)
	}
	if e.Type != "robot_msgs/TaskStatus" || e.StampSource != StampHeader {
		t.Errorf("event %+v", e)
	}
	for _, s := range c.Stats() {
		if s.DecodeErrors != 0 || s.UnknownType != 0 {
			t.Errorf("stats %+v", s)
		}
	}
}
