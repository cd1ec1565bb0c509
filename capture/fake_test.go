package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
)

// fakeSub is a subscription the test feeds by hand.
type fakeSub struct {
	ch     chan *ros.Message
	closed atomic.Bool
	mu     sync.Mutex
	stats  ros.SubscriptionStats
}

func (s *fakeSub) Messages() <-chan *ros.Message { return s.ch }
func (s *fakeSub) Stats() ros.SubscriptionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
func (s *fakeSub) Close() error { s.closed.Store(true); return nil }

// fakeNode hands out fakeSubs and answers /use_sim_time (Params).
type fakeNode struct {
	mu       sync.Mutex
	subs     map[string]*fakeSub
	order    []string
	simTime  any // nil: parameter not set
	failOn   string
	queueCap int
	queues   map[string]int // topic -> QueueSize asked for
	opts     map[string]SubscribeOptions
}

func newFakeNode() *fakeNode { return &fakeNode{subs: map[string]*fakeSub{}, queueCap: 64} }

func (n *fakeNode) Subscribe(_ context.Context, o SubscribeOptions) (Subscription, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if o.Topic == n.failOn {
		return nil, errors.New("master unreachable")
	}
	s := &fakeSub{ch: make(chan *ros.Message, n.queueCap)}
	n.subs[o.Topic] = s
	if n.queues == nil {
		n.queues = map[string]int{}
	}
	n.queues[o.Topic] = o.QueueSize
	if n.opts == nil {
		n.opts = map[string]SubscribeOptions{}
	}
	n.opts[o.Topic] = o
	n.order = append(n.order, o.Topic)
	return s, nil
}

// WatchParam answers /use_sim_time once (nil: unset); no later changes.
func (n *fakeNode) WatchParam(_ context.Context, key string, _ func(any)) (any, error) {
	if key != "/use_sim_time" {
		return nil, nil
	}
	return n.simTime, nil
}

func (n *fakeNode) sub(t *testing.T, topic string) *fakeSub {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.subs[topic]
	if !ok {
		t.Fatalf("%s not subscribed", topic)
	}
	return s
}

// recorder is a sink for every role; frames are released on arrival
// unless keep is set.
type recorder struct {
	mu     sync.Mutex
	frames []Frame
	joints []JointSample
	states []StateEvent
	keep   bool
	copies [][]byte
}

func (r *recorder) PutFrame(f Frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.copies = append(r.copies, append([]byte(nil), f.Data...))
	if !r.keep {
		f.Release()
	}
	r.frames = append(r.frames, f)
}
func (r *recorder) PutJoints(j JointSample) {
	r.mu.Lock()
	r.joints = append(r.joints, j)
	r.mu.Unlock()
}
func (r *recorder) PutState(s StateEvent) { r.mu.Lock(); r.states = append(r.states, s); r.mu.Unlock() }
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.frames) + len(r.joints) + len(r.states)
}

// releases counts releases per message, to prove exactly-once.
type releases struct {
	mu sync.Mutex
	n  map[*ros.Message]int
}

func (r *releases) hook(m *ros.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[*ros.Message]int{}
	}
	r.n[m]++
}

func (r *releases) check(t *testing.T, sent []*ros.Message) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, m := range sent {
		if r.n[m] != 1 {
			t.Errorf("message %d (%s) released %d times, want 1", i, m.Topic, r.n[m])
		}
	}
}

// --- message builders (ROS serialization) ---

type wire struct{ b []byte }

func (w *wire) u8(v uint8) *wire   { w.b = append(w.b, v); return w }
func (w *wire) u32(v uint32) *wire { w.b = binary.LittleEndian.AppendUint32(w.b, v); return w }
func (w *wire) f64(v float64) *wire {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
	return w
}
func (w *wire) str(s string) *wire { w.u32(uint32(len(s))); w.b = append(w.b, s...); return w }
func (w *wire) stamp(t time.Time) *wire {
	if t.IsZero() {
		return w.u32(0).u32(0)
	}
	return w.u32(uint32(t.Unix())).u32(uint32(t.Nanosecond()))
}
func (w *wire) header(t time.Time) *wire { return w.u32(1).stamp(t).str("frame") }

var (
	pubImage      = &ros.PublisherInfo{CallerID: "/cam", Type: msg.TypeImage, MD5Sum: msg.MD5Image}
	pubCompressed = &ros.PublisherInfo{CallerID: "/cam", Type: msg.TypeCompressedImage, MD5Sum: msg.MD5CompressedImage}
	pubJoints     = &ros.PublisherInfo{CallerID: "/robot", Type: msg.TypeJointState, MD5Sum: msg.MD5JointState}
	pubString     = &ros.PublisherInfo{CallerID: "/task", Type: msg.TypeString, MD5Sum: msg.MD5String,
		MessageDefinition: "string data\n"}
	pubSmach = &ros.PublisherInfo{CallerID: "/smach", Type: msg.TypeSmachContainerStatus, MD5Sum: msg.MD5SmachContainerStatus}
	pubGoals = &ros.PublisherInfo{CallerID: "/move_base", Type: msg.TypeGoalStatusArray, MD5Sum: msg.MD5GoalStatusArray}
	pubClock = &ros.PublisherInfo{CallerID: "/play", Type: msg.TypeClock, MD5Sum: msg.MD5Clock}
	// a custom stamped type, decoded dynamically
	pubPhase = &ros.PublisherInfo{CallerID: "/ctl", Type: "robot_msgs/TaskStatus", MD5Sum: "*",
		MessageDefinition: "Header header\nPhase status\n" + sep + "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n" +
			sep + "MSG: robot_msgs/Phase\nstring phase\nuint8 step\n"}
)

const sep = "================================================================================\n"

func imageBody(stamp time.Time, w, h int, enc string) []byte {
	b := (&wire{}).header(stamp).u32(uint32(h)).u32(uint32(w)).str(enc).u8(0).u32(uint32(3 * w)).u32(uint32(3 * w * h))
	for i := 0; i < 3*w*h; i++ {
		b.b = append(b.b, byte(i))
	}
	return b.b
}

func compressedBody(stamp time.Time, format string, data []byte) []byte {
	b := (&wire{}).header(stamp).str(format).u32(uint32(len(data)))
	return append(b.b, data...)
}

func jointBody(stamp time.Time) []byte {
	w := (&wire{}).header(stamp).u32(2).str("elbow").str("wrist")
	w.u32(2).f64(0.5).f64(-1).u32(0).u32(2).f64(1).f64(2)
	return w.b
}

func phaseBody(stamp time.Time, phase string) []byte {
	return (&wire{}).header(stamp).str(phase).u8(3).b
}

func message(topic string, pub *ros.PublisherInfo, body []byte, received time.Time) *ros.Message {
	return &ros.Message{Topic: topic, Publisher: pub, Data: body, Received: received}
}
