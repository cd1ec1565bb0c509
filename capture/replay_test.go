package capture

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
)

// recorded is one message of a recording: what a bag holds.
type recorded struct {
	topic string
	pub   *ros.PublisherInfo
	body  []byte
	at    time.Time // record time
}

func replayScript() (Config, []recorded) {
	bagT := time.Unix(1776842526, 0)
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2, 3}
	cfg := Config{Cameras: []string{"/cam", "/raw"}, Joints: []string{"/joints"},
		FSM: []FSMTopic{{Topic: "/task"}, {Topic: "/phase"}, {Topic: "/task_dyn", Dynamic: true}}}
	at := func(ms int) time.Time { return bagT.Add(time.Duration(ms) * time.Millisecond) }
	return cfg, []recorded{
		{"/task", pubString, (&wire{}).str("idle").b, at(0)},
		{"/cam", pubCompressed, compressedBody(at(-20), "jpeg", jpeg), at(5)},
		{"/raw", pubImage, imageBody(at(1), 4, 2, "rgb8"), at(6)},
		{"/joints", pubJoints, jointBody(at(2)), at(7)},
		{"/joints", pubJoints, jointBody(time.Time{}), at(8)},                   // no header stamp
		{"/joints", pubJoints, jointBody(time.Now()), at(9)},                    // wall stamp: implausible
		{"/cam", pubCompressed, compressedBody(at(30), "theora", jpeg), at(40)}, // unknown format
		{"/raw", pubImage, imageBody(at(40), 4, 2, "rgb8")[:20], at(41)},        // truncated
		{"/phase", pubPhase, phaseBody(at(45), "grasp"), at(50)},
		{"/task_dyn", pubString, (&wire{}).str("reach").b, at(60)},
		{"/task", pubJoints, jointBody(at(70)), at(70)}, // no definition to decode it: unknown type
		{"/task", pubString, (&wire{}).str("done").b, at(2000)},
	}
}

// TestReplayMatchesLive: the same recording through a live Capture on
// sim time (a /clock before every message, as rosbag play --clock) and
// through Replay gives the same events and counters.
func TestReplayMatchesLive(t *testing.T) {
	cfg, script := replayScript()
	live := func() (*recorder, []TopicStats) {
		cfg := cfg
		cfg.SimTime = SimTimeOn
		h := start(t, cfg, newFakeNode())
		for _, m := range script {
			h.send("/clock", message("/clock", pubClock, (&wire{}).stamp(m.at).b, wallNow))
			h.send(m.topic, message(m.topic, m.pub, m.body, wallNow))
		}
		_ = h.c.Close()
		h.rel.check(t, h.sent)
		return h.rec, h.c.Stats()
	}
	replay := func() (*recorder, []TopicStats) {
		rec := &recorder{}
		r, err := NewReplay(cfg, Sinks{Frames: rec, Joints: rec, States: rec}, Options{Now: func() time.Time { return wallNow }})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range script {
			if err := r.Handle(m.topic, m.pub, m.body, m.at); err != nil {
				t.Fatal(err)
			}
		}
		return rec, r.Stats()
	}
	lr, ls := live()
	rr, rs := replay()
	if len(lr.frames) != 3 || len(lr.joints) != 3 || len(lr.states) != 4 {
		t.Fatalf("live: %d frames %d joints %d states", len(lr.frames), len(lr.joints), len(lr.states))
	}
	for _, f := range append(lr.frames, rr.frames...) {
		f.release, f.releaser = nil, nil
	}
	strip := func(fs []Frame) []Frame {
		out := make([]Frame, len(fs))
		for i, f := range fs {
			out[i] = Frame{Topic: f.Topic, Stamp: f.Stamp, Received: f.Received, StampSource: f.StampSource,
				Format: f.Format, Encoding: f.Encoding, Width: f.Width, Height: f.Height, Step: f.Step}
		}
		return out
	}
	if !reflect.DeepEqual(strip(lr.frames), strip(rr.frames)) || !reflect.DeepEqual(lr.copies, rr.copies) {
		t.Errorf("frames differ:\nlive   %+v\nreplay %+v", strip(lr.frames), strip(rr.frames))
	}
	if !reflect.DeepEqual(lr.joints, rr.joints) {
		t.Errorf("joints differ:\nlive   %+v\nreplay %+v", lr.joints, rr.joints)
	}
	if !reflect.DeepEqual(lr.states, rr.states) {
		t.Errorf("states differ:\nlive   %+v\nreplay %+v", lr.states, rr.states)
	}
	counters := func(ss []TopicStats) map[string][6]uint64 {
		out := map[string][6]uint64{}
		for _, s := range ss {
			if s.Role != RoleClock {
				out[s.Topic] = [6]uint64{s.Messages, s.Events, s.DecodeErrors, s.UnknownType, s.ReceiveStamps, s.Drops}
			}
		}
		return out
	}
	if l, r := counters(ls), counters(rs); !reflect.DeepEqual(l, r) {
		t.Errorf("counters differ:\nlive   %v\nreplay %v", l, r)
	}
}

func TestReplayHandle(t *testing.T) {
	rec := &recorder{keep: true}
	r, err := NewReplay(Config{Cameras: []string{"/cam"}, FSM: []FSMTopic{{Topic: "/task"}}},
		Sinks{Frames: rec, States: rec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Now(); ok {
		t.Error("clock valid before the first message")
	}
	if got := r.Topics(); !reflect.DeepEqual(got, []string{"/cam", "/task"}) {
		t.Errorf("Topics %v", got)
	}
	at := time.Unix(1700000000, 5)
	body := compressedBody(at, "jpeg", []byte{0xff, 0xd8, 0xff, 9})
	if err := r.Handle("/cam", pubCompressed, body, at); err != nil {
		t.Fatal(err)
	}
	// the caller reuses its buffer: the sink copied inside PutFrame
	want := append([]byte(nil), rec.copies[0]...)
	clear(body)
	if !reflect.DeepEqual(rec.copies[0], want) || want[0] != 0xff {
		t.Error("the sink's copy changed with the caller's buffer")
	}
	f := rec.frames[0]
	f.Release() // a no-op, and safe
	if now, ok := r.Now(); !ok || !now.Equal(at) || !f.Stamp.Equal(at) || !f.Received.Equal(at) {
		t.Errorf("Now %v %v, frame %v %v", now, ok, f.Stamp, f.Received)
	}
	if err := r.Handle("/other", pubString, nil, at); !errors.Is(err, ErrUnknownTopic) {
		t.Errorf("unknown topic: %v", err)
	}
	if err := r.Handle("/task", pubString, (&wire{}).str("x").b, time.Time{}); err == nil {
		t.Error("zero receive time accepted")
	}
	s := r.Stats()
	if s[0].Topic != "/cam" || s[0].Events != 1 || s[0].Bytes != uint64(len(body)) || s[1].Messages != 0 {
		t.Errorf("stats %+v", s)
	}
	if _, err := NewReplay(Config{Cameras: []string{"/cam"}}, Sinks{}, Options{}); err == nil {
		t.Error("no frame sink accepted")
	}
}

func TestReplayCameraDoesNotAllocate(t *testing.T) {
	r, err := NewReplay(Config{Cameras: []string{"/cam"}}, Sinks{Frames: discardSink{}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1700000000, 0)
	body := compressedBody(at, "jpeg", make([]byte, 50000))
	_ = r.Handle("/cam", pubCompressed, body, at)
	if n := testing.AllocsPerRun(100, func() { _ = r.Handle("/cam", pubCompressed, body, at) }); n != 0 {
		t.Errorf("%v allocations per replayed frame", n)
	}
}

// TestLiveReceiveDoesNotAllocate: the live per-message entry (counters,
// type note, conversion) allocates nothing for a camera frame.
func TestLiveReceiveDoesNotAllocate(t *testing.T) {
	c, err := New(Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, newFakeNode(),
		Sinks{Frames: discardSink{}}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tp := c.topics[0]
	m := &ros.Message{Topic: "/cam", Publisher: pubCompressed, Data: compressedBody(wallNow, "jpeg", make([]byte, 1000)), Received: wallNow}
	c.receive(tp, m)
	if n := testing.AllocsPerRun(100, func() { c.receive(tp, m) }); n != 0 {
		t.Errorf("%v allocations per live message", n)
	}
}
