package capture

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros/rostest"
)

// replayBag runs every captured message of a bag through a Replay.
func replayBag(t *testing.T, path string, cfg Config, sink *liveSink) *Replay {
	t.Helper()
	r, err := bag.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rp, err := NewReplay(cfg, Sinks{Frames: sink, Joints: sink, States: sink}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	it := r.Messages(rp.Topics()...)
	defer it.Close()
	for it.Next() {
		m := it.Message()
		if err := rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return rp
}

// TestReplayMatchesRosbagPlay: the real G1 episode replayed from the
// bag gives the events a live capture gets from `rosbag play --clock`
// (which may miss the first messages while its connections come up):
// every live frame and joint sample has its twin in the replay, with the
// same stamp; the task states come in the same order, at the same time
// within the /clock granularity.
func TestReplayMatchesRosbagPlay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster and rosbag play")
	}
	g1 := sampledata.Path(t, "g1_ep29.bag")
	rostest.Require(t, "rosbag")
	cfg := Config{
		Cameras:   []string{"/cam_high/image_raw/compressed"},
		Joints:    []string{"/joint_states"},
		FSM:       []FSMTopic{{Topic: "/task_state"}},
		QueueSize: 256,
	}
	rs := newLiveSink()
	rp := replayBag(t, g1, cfg, rs)
	frames, joints, states := rs.counts()
	if frames[cfg.Cameras[0]] != 221 || joints != 221 || states != 7 {
		t.Fatalf("replay: frames %v joints %d states %d, want 221, 221, 7", frames, joints, states)
	}
	if now, ok := rp.Now(); !ok || !now.Equal(time.Unix(1776842533, 334333419)) {
		t.Errorf("replay clock %v at the end, want the last record time", now)
	}
	for _, s := range rp.Stats() {
		if s.DecodeErrors != 0 || s.UnknownType != 0 || s.Drops != 0 || s.Messages != s.Events {
			t.Errorf("replay stats %+v", s)
		}
	}

	m := rostest.StartMaster(t)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	ls := newLiveSink()
	startLive(t, m, cfg, ls)
	play := rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "-d", "1", "-r", "4", g1)
	if err := play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v", err)
	}
	rostest.WaitFor(t, 10*time.Second, "live events", func() bool {
		f, j, s := ls.counts()
		return f[cfg.Cameras[0]] >= 200 && j >= 200 && s >= 6
	})
	ls.mu.Lock()
	defer ls.mu.Unlock()

	type key struct {
		stamp time.Time
		src   StampSource
		n     int
	}
	replayFrames := map[key]Frame{}
	for _, f := range rs.frames[cfg.Cameras[0]] {
		replayFrames[key{f.Stamp, f.StampSource, len(f.Data)}] = f
	}
	for _, f := range ls.frames[cfg.Cameras[0]] {
		r, ok := replayFrames[key{f.Stamp, f.StampSource, len(f.Data)}]
		if !ok || r.Format != f.Format || r.Encoding != f.Encoding {
			t.Fatalf("live frame %v (%v, %d bytes) has no twin in the replay", f.Stamp, f.StampSource, len(f.Data))
		}
		// the live receive time is the /clock at arrival, the replay's
		// the record time: /clock ticks every 10 ms of wall time, 40 ms
		// of bag time at -r 4
		if d := f.Received.Sub(r.Received).Abs(); d > 500*time.Millisecond {
			t.Errorf("frame %v received %v live, %v in the replay", f.Stamp, f.Received, r.Received)
		}
	}
	replayJoints := map[time.Time]JointSample{}
	for _, j := range rs.joints {
		replayJoints[j.Stamp] = j
	}
	for _, j := range ls.joints {
		r, ok := replayJoints[j.Stamp]
		if !ok || !slices.Equal(r.Position, j.Position) || !slices.Equal(r.Names, j.Names) {
			t.Fatalf("live joints at %v have no twin in the replay", j.Stamp)
		}
	}
	// the live run may miss the first state: compare the tail
	skip := len(rs.states) - len(ls.states)
	for i, l := range ls.states {
		r := rs.states[skip+i]
		ld, rd := l.Value.(*msg.String).Data, r.Value.(*msg.String).Data
		if ld != rd || l.StampSource != r.StampSource || l.Stamp.Sub(r.Stamp).Abs() > 500*time.Millisecond {
			t.Errorf("state %d: live %q at %v (%v), replay %q at %v (%v)", i, ld, l.Stamp, l.StampSource, rd, r.Stamp, r.StampSource)
		}
	}
}
