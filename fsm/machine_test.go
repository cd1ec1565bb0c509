package fsm

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/ros/msg"
)

var t0 = time.Unix(1776842526, 0).UTC()

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

type rig struct {
	t     *testing.T
	dir   string
	store *epstore.Store
	m     *Machine
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	dir := t.TempDir()
	st, err := epstore.Open(dir, epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Robot = "arm-01"
	m, err := New(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return &rig{t: t, dir: dir, store: st, m: m}
}

func (r *rig) send(topic string, sec float64, v any) {
	r.m.PutState(capture.StateEvent{Topic: topic, Stamp: at(sec), Value: v})
}

func (r *rig) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.m.Flush(ctx); err != nil {
		r.t.Fatal(err)
	}
}

// episodes closes the machine and returns every episode, oldest first.
func (r *rig) episodes() []*episode.Episode {
	r.t.Helper()
	if err := r.m.Close(); err != nil {
		r.t.Fatal(err)
	}
	ms, err := episode.List(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []*episode.Episode
	for _, m := range ms {
		e, err := episode.Load(r.dir, m.ID)
		if err != nil {
			r.t.Fatal(err)
		}
		if len(e.Problems) > 0 {
			r.t.Fatalf("%s: %v", m.ID, e.Problems)
		}
		out = append(out, e)
	}
	return out
}

// timeline renders segments as "label[start-end]outcome" for comparison.
func timeline(e *episode.Episode) string {
	var b []string
	for _, s := range e.Segments {
		b = append(b, fmt.Sprintf("%s[%g-%g]%s", s.Label, s.StartSec, s.EndSec, s.Outcome))
	}
	return strings.Join(b, " ")
}

func str(s string) *msg.String { return &msg.String{Data: s} }

func TestStringSourceIdleEpisodes(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/task_state", IdleStates: []string{"idle"}}}, Instruction: "pick up the bottle"})
	for _, e := range []struct {
		sec   float64
		state string
	}{{0, "idle"}, {0.5, "idle"}, {1, "reach"}, {2, "reach"}, {3, "grasp"}, {5, "lift"}, {7, "idle"}, {8, "idle"}, {9, "reach"}, {9.5, "reach"}} {
		r.send("/task_state", e.sec, str(e.state))
	}
	r.flush()
	eps := r.episodes()
	if len(eps) != 2 {
		t.Fatalf("%d episodes, want 2", len(eps))
	}
	e := eps[0]
	if got, want := timeline(e), "reach[0-2]completed grasp[2-4]completed lift[4-6]completed"; got != want {
		t.Fatalf("timeline %q, want %q", got, want)
	}
	m := e.Manifest
	if !m.Start.Equal(at(1)) || !m.End.Equal(at(7)) || m.Outcome != episode.Completed || m.EndReason != episode.EndIdle ||
		m.Instruction != "pick up the bottle" {
		t.Fatalf("manifest %+v", m)
	}
	// Raw transitions: idle->reach, reach->grasp, grasp->lift, lift->idle.
	var tr []string
	for _, x := range e.Transitions {
		if x.Kind == episode.TransitionState {
			tr = append(tr, x.From+">"+x.To)
		}
	}
	if got := strings.Join(tr, " "); got != "idle>reach reach>grasp grasp>lift lift>idle" {
		t.Fatalf("transitions %q", got)
	}
	// The second episode was open at Close: interrupted.
	e = eps[1]
	if e.Manifest.Outcome != episode.Interrupted || e.Manifest.EndReason != episode.EndShutdown ||
		len(e.Segments) != 1 || e.Segments[0].Outcome != episode.Interrupted || e.Segments[0].Label != "reach" {
		t.Fatalf("second episode %+v %s", e.Manifest, timeline(e))
	}
}

func smach(path string, active ...string) *msg.SmachContainerStatus {
	return &msg.SmachContainerStatus{Path: path, ActiveStates: active}
}

func TestSmachHierarchy(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/sm/smach/container_status", Kind: KindSmach}}})
	topic := "/sm/smach/container_status"
	r.send(topic, 0, smach("/SM_ROOT", "PICK"))
	r.send(topic, 0.01, smach("/SM_ROOT/PICK", "APPROACH"))
	r.send(topic, 2, smach("/SM_ROOT/PICK", "GRASP"))
	r.send(topic, 3, smach("/SM_ROOT/PICK", "GRASP")) // heartbeat
	r.send(topic, 4, smach("/SM_ROOT", "PLACE"))
	r.send(topic, 6, smach("/SM_ROOT"))
	r.flush()
	eps := r.episodes()
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	// The first message opens PICK, a leaf until its container reports:
	// then its child inherits its start.
	got := timeline(eps[0])
	want := "PICK/APPROACH[0-2]completed PICK/GRASP[2-4]completed PLACE[4-6]completed"
	if got != want {
		t.Fatalf("timeline\n%s\nwant\n%s", got, want)
	}
	if p := eps[0].Segments[1].Path; p != "/SM_ROOT/PICK/GRASP" {
		t.Fatalf("path %q", p)
	}
}

func goals(text string, st ...any) *msg.GoalStatusArray {
	a := &msg.GoalStatusArray{}
	for i := 0; i < len(st); i += 2 {
		a.StatusList = append(a.StatusList, msg.GoalStatus{GoalID: msg.GoalID{ID: st[i].(string)}, Status: st[i+1].(uint8), Text: text})
	}
	return a
}

func TestActionlibGoals(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/pick/status", Kind: KindActionlib}}})
	tp := "/pick/status"
	r.send(tp, 0, goals("", "g1", msg.GoalPending))
	r.send(tp, 1, goals(acceptedText, "g1", msg.GoalActive))
	r.send(tp, 2, goals(acceptedText, "g1", msg.GoalActive))
	r.send(tp, 3, goals("done", "g1", msg.GoalSucceeded))
	r.send(tp, 4, goals("", "g1", msg.GoalSucceeded, "g2", msg.GoalActive))
	r.send(tp, 6, goals("", "g1", msg.GoalSucceeded, "g2", msg.GoalAborted))
	r.send(tp, 7, goals("place red cube", "g3", msg.GoalActive))
	r.send(tp, 8, goals("", "g3", msg.GoalPreempted))
	r.send(tp, 9, goals("", "g4", msg.GoalActive))
	r.send(tp, 10, goals(""))
	r.flush()
	eps := r.episodes()
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	got := timeline(eps[0])
	want := "pick[1-3]completed pick[4-6]aborted place red cube[7-8]preempted pick[9-10]aborted"
	if got != want {
		t.Fatalf("timeline\n%s\nwant\n%s", got, want)
	}
	if eps[0].Segments[1].GoalID != "g2" {
		t.Fatalf("goal id %q", eps[0].Segments[1].GoalID)
	}
}

// dynamic decodes a message of the given definition from fields encoded
// by enc.
func dynamic(t *testing.T, typ, def string, enc func([]byte) []byte) *msg.Value {
	t.Helper()
	d, err := msg.Parse(typ, def)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.Decode(enc(nil))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func rosString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func TestFieldSourceAndRecordingTopic(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/robot/status", Kind: KindField, Field: "status.phase"}},
		RecordingTopic: "/recording", InstructionTopic: "/instruction"})
	def := "int32 id\nStatus status\n================\nMSG: demo/Status\nstring phase\nfloat64 progress\n"
	phase := func(p string) *msg.Value {
		return dynamic(t, "demo/Task", def, func(b []byte) []byte {
			b = binary.LittleEndian.AppendUint32(b, 7)
			b = rosString(b, p)
			return binary.LittleEndian.AppendUint64(b, 0)
		})
	}
	boolMsg := func(on bool) *msg.Value {
		return dynamic(t, "std_msgs/Bool", "bool data", func(b []byte) []byte {
			if on {
				return append(b, 1)
			}
			return append(b, 0)
		})
	}
	r.send("/robot/status", 0, phase("approach"))
	r.send("/instruction", 0.5, str("wipe the table"))
	r.send("/recording", 1, boolMsg(true))
	r.send("/robot/status", 2, phase("wipe"))
	r.send("/recording", 4, boolMsg(false))
	r.send("/robot/status", 5, phase("retract"))
	r.send("/recording", 6, str("ep-42"))
	r.send("/recording", 7, str("ep-43"))
	r.send("/recording", 8, str(""))
	r.flush()
	eps := r.episodes()
	if len(eps) != 3 {
		t.Fatalf("%d episodes, want 3", len(eps))
	}
	if got := timeline(eps[0]); got != "approach[0-1]completed wipe[1-3]completed" {
		t.Fatalf("first %q", got)
	}
	if eps[0].Manifest.Instruction != "wipe the table" || eps[0].Manifest.EndReason != episode.EndRecording {
		t.Fatalf("first manifest %+v", eps[0].Manifest)
	}
	if eps[1].Manifest.Name != "ep-42" || timeline(eps[1]) != "retract[0-1]completed" ||
		eps[2].Manifest.Name != "ep-43" || timeline(eps[2]) != "retract[0-1]completed" {
		t.Fatalf("named episodes %+v %s / %+v %s", eps[1].Manifest, timeline(eps[1]), eps[2].Manifest, timeline(eps[2]))
	}
}

func TestMaxDuration(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/s"}}, MaxDuration: 10 * time.Second})
	r.send("/s", 0, str("a"))
	r.send("/s", 5, str("b"))
	r.send("/s", 12, str("c"))
	r.flush()
	eps := r.episodes()
	if len(eps) != 2 {
		t.Fatalf("%d episodes", len(eps))
	}
	if got := timeline(eps[0]); got != "a[0-5]completed b[5-10]interrupted" || eps[0].Manifest.EndReason != episode.EndMaxDuration {
		t.Fatalf("first %q %+v", got, eps[0].Manifest)
	}
	if got := timeline(eps[1]); !strings.HasPrefix(got, "b[0-2]completed c[2-") {
		t.Fatalf("second %q", got)
	}
}

func TestBadInputCounted(t *testing.T) {
	r := newRig(t, Config{Sources: []Source{{Topic: "/s"}, {Topic: "/sm", Kind: KindSmach}}})
	r.send("/s", 0, smach("/X", "A")) // wrong type for a string source
	r.send("/sm", 0, str("x"))
	r.send("/other", 0, str("x"))
	r.flush()
	st := r.m.Stats()
	if st.Bad != 2 || st.Unknown != 1 || st.Events != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "at least one source"},
		{Config{Sources: []Source{{Topic: "/a", Kind: "magic"}}}, "fsm[0].type"},
		{Config{Sources: []Source{{Topic: "/a", Kind: KindField}}}, "fsm[0].field"},
		{Config{Sources: []Source{{Topic: "/a", Field: "x"}}}, "fsm[0].field: only"},
		{Config{Sources: []Source{{Topic: "/a", Kind: KindField, Field: "a..b"}}}, "fsm[0].field:"},
		{Config{Sources: []Source{{}}}, "fsm[0].topic: required"},
		// fsm took any positive duration, config wanted >= 1s: one rule
		{Config{RecordingTopic: "/r", MaxDuration: time.Millisecond}, "episode.max_duration: must be >= 1s"},
		{Config{RecordingTopic: "/r", MaxDuration: -time.Second}, "episode.max_duration: must be >= 1s"},
	} {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// recorder is an Observer that keeps what it hears as text.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.events = append(r.events, s); r.mu.Unlock() }
func (r *recorder) EpisodeBegan(m episode.Manifest) {
	r.add(fmt.Sprintf("begin closed=%v", m.Closed))
}
func (r *recorder) Transition(m episode.Manifest, t episode.Transition) {
	r.add(fmt.Sprintf("transition %s>%s@%g", t.From, t.To, t.Sec))
}
func (r *recorder) SegmentClosed(m episode.Manifest, s episode.Segment) {
	r.add(fmt.Sprintf("segment %d %s[%g-%g]", s.Index, s.Label, s.StartSec, s.EndSec))
}
func (r *recorder) EpisodeEnded(m episode.Manifest) {
	r.add(fmt.Sprintf("end closed=%v %s segments=%d", m.Closed, m.Outcome, m.Segments))
}

func TestObserverHearsDurableEvents(t *testing.T) {
	rec := &recorder{}
	r := newRig(t, Config{Sources: []Source{{Topic: "/s", IdleStates: []string{"idle"}}}, Observer: rec})
	for _, e := range []struct {
		sec   float64
		state string
	}{{0, "idle"}, {1, "reach"}, {3, "grasp"}, {4, "idle"}} {
		r.send("/s", e.sec, str(e.state))
	}
	r.flush()
	want := "begin closed=false|transition idle>reach@0|segment 0 reach[0-2]|transition reach>grasp@2|" +
		"segment 1 grasp[2-3]|transition grasp>idle@3|end closed=true completed segments=2"
	rec.mu.Lock()
	got := strings.Join(rec.events, "|")
	rec.mu.Unlock()
	if got != want {
		t.Fatalf("observer heard\n%s\nwant\n%s", got, want)
	}
}
