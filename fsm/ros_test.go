package fsm

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rostest"
)

type published struct {
	Topic, State, Stamp string
}

// TestPickAndPlaceFromROS runs a real rosmaster, a rospy script that
// drives all four source kinds (String, SMACH with a genpy-generated
// class, an actionlib SimpleActionServer, a field of a genpy-generated
// custom type) through a pick-and-place, and edged's ros -> capture ->
// fsm -> episode chain, then checks the recorded segments against what
// the script says it published.
func TestPickAndPlaceFromROS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster and rospy: skipped with -short")
	}
	m := rostest.StartMaster(t)
	rostest.RequireRospy(t)
	dir := t.TempDir()
	store, err := epstore.Open(dir, epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cfg := Config{Robot: "arm-01", Instruction: "pick the cube and place it", Sources: []Source{
		{Topic: "/task_state", IdleStates: []string{"idle"}},
		{Topic: "/sm/smach/container_status", Kind: KindSmach},
		{Topic: "/robot/status", Kind: KindField, Field: "status.phase"},
		{Topic: "/pick/status", Kind: KindActionlib},
	}}
	mach, err := New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	defer mach.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node, err := ros.NewNode(ctx, ros.Config{MasterURI: m.URI, NodeName: "/edged_fsm_test", Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	topics, dynamic := cfg.Topics()
	var ccfg capture.Config
	for i, tp := range topics {
		ccfg.FSM = append(ccfg.FSM, capture.FSMTopic{Topic: tp, Dynamic: dynamic[i]})
	}
	ccfg.SimTime = capture.SimTimeOff
	capt, err := capture.New(ccfg, capture.FromROS1(node), capture.Sinks{States: mach}, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := capt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer capt.Close()

	script, _ := filepath.Abs("testdata/pickplace.py")
	proc := m.Python(script)
	rostest.WaitFor(t, 60*time.Second, "the pick-and-place script to finish", func() bool {
		return strings.Contains(proc.Output(), "\ndone\n") || strings.HasPrefix(proc.Output(), "done\n")
	})
	var pubs []published
	sc := bufio.NewScanner(strings.NewReader(proc.Output()))
	for sc.Scan() {
		var p published
		if json.Unmarshal(sc.Bytes(), &p) == nil && p.Topic != "" {
			pubs = append(pubs, p)
		}
	}
	var eps []episode.Manifest
	rostest.WaitFor(t, 10*time.Second, "a closed episode", func() bool {
		eps, _ = episode.List(dir)
		return len(eps) == 1 && eps[0].Closed
	})
	e, err := episode.Load(dir, eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Manifest.Outcome != episode.Completed || e.Manifest.EndReason != episode.EndIdle ||
		e.Manifest.Instruction != cfg.Instruction || len(e.Problems) > 0 {
		t.Fatalf("manifest %+v, problems %v", e.Manifest, e.Problems)
	}
	bySource := map[string][]episode.Segment{}
	for _, s := range e.Segments {
		bySource[s.Source] = append(bySource[s.Source], s)
	}
	labels := func(src string) string {
		var out []string
		for _, s := range bySource[src] {
			out = append(out, s.Label+":"+s.Outcome)
		}
		return strings.Join(out, " ")
	}
	for src, want := range map[string]string{
		"/task_state":                "reach:completed grasp:completed lift:completed place:completed",
		"/sm/smach/container_status": "PICK/APPROACH:completed PICK/GRASP:completed PLACE:completed",
		"/robot/status":              "approach:completed grasp:completed lift:completed done:completed",
		"/pick/status":               "pick:completed pick:aborted pick:preempted",
	} {
		if got := labels(src); got != want {
			t.Errorf("%s: recorded %q, want %q", src, got, want)
		}
	}
	// Header-stamped changes in the middle of the episode start exactly
	// at the published stamp.
	exact := map[string]string{"/SM_ROOT/PICK:GRASP": "PICK/GRASP", "/SM_ROOT:PLACE": "PLACE"}
	for _, p := range pubs {
		label, ok := exact[p.State]
		if !ok {
			continue
		}
		for _, s := range bySource[p.Topic] {
			if s.Label == label && !s.Start.Equal(parseStamp(t, p.Stamp)) {
				t.Errorf("%s starts at %v, published at %s", label, s.Start, p.Stamp)
			}
		}
	}
	for _, p := range pubs {
		if p.Topic == "/robot/status" && p.State == "lift" {
			for _, s := range bySource[p.Topic] {
				if s.Label == "lift" && !s.Start.Equal(parseStamp(t, p.Stamp)) {
					t.Errorf("field lift starts at %v, published at %s", s.Start, p.Stamp)
				}
			}
		}
	}
	// Segments of one sequential source tile the episode without gaps.
	ts := bySource["/task_state"]
	for i := 1; i < len(ts); i++ {
		if !ts[i].Start.Equal(ts[i-1].End) {
			t.Errorf("task_state gap between %s and %s", ts[i-1].Label, ts[i].Label)
		}
	}
	if n := len(e.Transitions); n < 15 {
		t.Errorf("only %d raw transitions recorded", n)
	}
	st := mach.Stats()
	if st.Bad != 0 || st.Dropped != 0 || st.StoreErrors != 0 || st.Heartbeats == 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("%d segments, %d transitions, %d events (%d heartbeats recorded)", len(e.Segments), len(e.Transitions), st.Events, st.Heartbeats)
}

func parseStamp(t *testing.T, s string) time.Time {
	sec, nsec, ok := strings.Cut(s, ".")
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(nsec, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad stamp %q", s)
	}
	return time.Unix(a, b)
}
