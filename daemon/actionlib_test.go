package daemon

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// topicPub is a Go publisher of one topic with its type's definition
// (rostest.FakePublisher): send writes a message to every subscriber
// connected now, as a ROS publisher does. It serves types no installed
// Python package provides (actionlib_msgs, an action's goal).
type topicPub struct {
	*rostest.FakePublisher
	mu    sync.Mutex
	conns []net.Conn
}

func startTopicPub(t *testing.T, m *rostest.Master, node, topic, typ, def string) *topicPub {
	t.Helper()
	d, err := msg.Parse(typ, def)
	if err != nil {
		t.Fatal(err)
	}
	p := &topicPub{}
	p.FakePublisher = rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: node, Topic: topic, Type: typ,
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			if rostest.WritePublisherHeader(conn, node, topic, typ, d.MD5(), def, false) != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, conn)
			p.mu.Unlock()
			<-ctx.Done()
		}})
	return p
}

// subscribers is the number of connections that got the header.
func (p *topicPub) subscribers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// send writes body to every subscriber; a failed connection is dropped.
func (p *topicPub) send(body []byte) {
	frame := rostest.AppendFrame(nil, body)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = slices.DeleteFunc(p.conns, func(c net.Conn) bool {
		_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := c.Write(frame)
		return err != nil
	})
}

func appendROSString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendROSTime(b []byte, t time.Time) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func appendHeader(b []byte, seq uint32, stamp time.Time) []byte {
	b = binary.LittleEndian.AppendUint32(b, seq)
	return appendROSString(appendROSTime(b, stamp), "")
}

// pickGoalMsg is an edged_test/PickActionGoal as an action client sends it.
func pickGoalMsg(id, object, place string, speed float64) []byte {
	now := time.Now()
	b := appendHeader(nil, 1, now)
	b = appendROSString(appendROSTime(b, now), id)
	b = appendROSString(appendROSString(b, object), place)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(speed))
	return binary.LittleEndian.AppendUint32(b, 0) // ids: an array, no argument
}

// goalStatus is one entry of a status array.
type goalStatus struct {
	id     string
	status uint8
}

// statusArrayMsg is an actionlib_msgs/GoalStatusArray as an action
// server publishes it (the text empty: the segment is named by the
// action).
func statusArrayMsg(seq uint32, sts []goalStatus) []byte {
	now := time.Now()
	b := appendHeader(nil, seq, now)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(sts)))
	for _, s := range sts {
		b = appendROSString(appendROSTime(b, now), s.id)
		b = appendROSString(append(b, s.status), "")
	}
	return b
}

// publishStatus publishes a status array on status at 20 Hz, as an
// action server does (status_frequency), until the test ends; the
// returned func sets what it says.
func publishStatus(t *testing.T, status *topicPub) (setStatus func(...goalStatus)) {
	var (
		stMu  sync.Mutex
		stNow []goalStatus
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for seq := uint32(1); ; seq++ {
			stMu.Lock()
			body := statusArrayMsg(seq, stNow)
			stMu.Unlock()
			status.send(body)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
	return func(s ...goalStatus) { stMu.Lock(); stNow = s; stMu.Unlock() }
}

// TestRunActionlibGoalArgumentsInTraceChecks (issue 14): live, an
// actionlib action's goals become trace elements named by the action
// with the goal's fields as arguments (pick(cup, table, 0.5)), read from
// the goal topic beside the status topic, and the configured checks
// that use the arguments are judged on them, their verdicts in the
// closed episode's manifest.
func TestRunActionlibGoalArgumentsInTraceChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster; skipped with -short")
	}
	m := rostest.StartMaster(t)
	goals := startTopicPub(t, m, "/pick_client", "/pick/goal", "edged_test/PickActionGoal", rostest.PickActionGoalDef)
	status := startTopicPub(t, m, "/pick_server", "/pick/status", msg.TypeGoalStatusArray, rostest.GoalStatusArrayDef)

	setStatus := publishStatus(t, status)

	dir := t.TempDir()
	store := filepath.Join(dir, "data", episode.EpisodesDir)
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\n"+
		"http: {listen: \"off\"}\njoints: [{topic: /joint_states}]\nfsm: [{topic: /pick/status, type: actionlib}]\n"+
		"checks:\n  rules:\n    checks:\n"+
		"      - {name: cup-then-bottle, formula: 'tr.AfterFirst(pick(cup, table)).Exists(pick(bottle, shelf))'}\n"+
		"      - {name: bottle-then-cup, formula: 'tr.AfterFirst(pick(bottle)).Exists(pick(cup))'}\n"+
		"      - {name: slow-picks, formula: 'tr.Exists(pick(.*, .*, 0\\.5))'}\n",
		filepath.Join(dir, "data"), m.URI))
	d, run := runDaemon(t, cfg, Options{})

	events := func(topic string) uint64 {
		c := d.capt.Load()
		if c == nil {
			return 0
		}
		for _, s := range c.Stats() {
			if s.Topic == topic && s.Role == capture.RoleFSM {
				return s.Events
			}
		}
		return 0
	}
	rostest.WaitFor(t, 60*time.Second, "edged subscribed to /pick/goal and /pick/status", func() bool {
		return goals.subscribers() > 0 && status.subscribers() > 0 && events("/pick/status") > 0
	})
	// opened is the number of goal segments opened in the open episode.
	opened := func() int {
		ms, err := episode.List(store)
		if err != nil || len(ms) == 0 {
			return 0
		}
		e, err := episode.Load(store, ms[len(ms)-1].ID)
		if err != nil {
			return 0
		}
		n := 0
		for _, tr := range e.Transitions {
			if tr.Opens != "" {
				n++
			}
		}
		return n
	}
	// openTrace is the trace of the open episode as `edged check` reads
	// the live store.
	rules, err := pipeline.RulesOf(cfg)
	if err != nil {
		t.Fatal(err)
	}
	openTrace := func() []string {
		ms, err := episode.List(store)
		if err != nil || len(ms) == 0 {
			return nil
		}
		e, err := episode.Load(store, ms[len(ms)-1].ID)
		if err != nil {
			return nil
		}
		var tr []string
		for _, el := range rules.Trace(e, "") {
			tr = append(tr, el.String())
		}
		return tr
	}
	// The first goal: the client sends it, the server takes it (ACTIVE)
	// and succeeds. Each step waits for edged to have taken the previous
	// one, so the order is the one a real action has.
	goals.send(pickGoalMsg("g1", "cup", "table", 0.5))
	rostest.WaitFor(t, 30*time.Second, "edged to take goal g1", func() bool { return events("/pick/goal") >= 1 })
	setStatus(goalStatus{"g1", msg.GoalActive})
	rostest.WaitFor(t, 30*time.Second, "goal g1's segment opened", func() bool { return opened() >= 1 })
	if tr := openTrace(); !slices.Equal(tr, []string{"pick(cup, table, 0.5)"}) {
		t.Errorf("while g1 is active, the live store's trace is %q, want [pick(cup, table, 0.5)]", tr)
	}
	setStatus(goalStatus{"g1", msg.GoalSucceeded})
	// The second goal's status reaches edged before the goal itself (two
	// topics, two connections: nothing orders them).
	setStatus(goalStatus{"g1", msg.GoalSucceeded}, goalStatus{"g2", msg.GoalActive})
	rostest.WaitFor(t, 30*time.Second, "goal g2's segment opened", func() bool { return opened() >= 2 })
	goals.send(pickGoalMsg("g2", "bottle", "shelf", 1))
	rostest.WaitFor(t, 30*time.Second, "edged to take goal g2", func() bool { return events("/pick/goal") >= 2 })
	want := []string{"pick(cup, table, 0.5)", "pick(bottle, shelf, 1)"}
	rostest.WaitFor(t, 30*time.Second, fmt.Sprintf("the live store's trace to be %q while g2 is active", want), func() bool {
		return slices.Equal(openTrace(), want)
	})
	setStatus(goalStatus{"g1", msg.GoalSucceeded}, goalStatus{"g2", msg.GoalSucceeded})
	rostest.WaitFor(t, 30*time.Second, "both goals' segments closed", func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) == 0 {
			return false
		}
		e, err := episode.Load(store, ms[len(ms)-1].ID)
		return err == nil && len(e.Segments) == 2
	})
	run.stop(t)

	ms, err := episode.List(store)
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes %+v, %v; want the one", ms, err)
	}
	e, err := episode.Load(store, ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Manifest.Closed {
		t.Fatalf("manifest %+v: not closed", e.Manifest)
	}
	for i, want := range [][]string{{"cup", "table", "0.5"}, {"bottle", "shelf", "1"}} {
		if s := e.Segments[i]; s.Kind != fsmkind.Actionlib || s.Outcome != episode.Completed || !slices.Equal(s.Args, want) {
			t.Errorf("segment %d %+v, want a completed actionlib goal with args %q", i, s, want)
		}
	}
	var trace []string
	for _, el := range rules.Trace(e, "") {
		trace = append(trace, el.String())
	}
	if !slices.Equal(trace, want) {
		t.Errorf("trace %q, want %q", trace, want)
	}
	v := e.Manifest.Verdicts
	sat := map[string]bool{"cup-then-bottle": true, "bottle-then-cup": false, "slow-picks": true}
	if len(v) != len(sat) {
		t.Fatalf("verdicts %+v, want one per check", v)
	}
	for _, x := range v {
		if want, ok := sat[x.Check]; !ok || x.Sat != want || x.Witness == "" {
			t.Errorf("verdict %+v, want sat %v with a witness", x, want)
		}
	}
	if w := verdictOf(v, "cup-then-bottle").Witness; !strings.Contains(w, "pick(bottle, shelf, 1)") {
		t.Errorf("witness %q does not name the goal with its arguments", w)
	}
}

func verdictOf(v []episode.Verdict, check string) episode.Verdict {
	for _, x := range v {
		if x.Check == check {
			return x
		}
	}
	return episode.Verdict{}
}
