package fsm

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros/rostest"
)

// pickGoal is an edged_test/PickActionGoal as the action client sends it.
func pickGoal(t *testing.T, id, object, place string, speed float64) *msg.Value {
	return dynamic(t, "edged_test/PickActionGoal", rostest.PickActionGoalDef, func(b []byte) []byte {
		b = binary.LittleEndian.AppendUint32(b, 1) // header.seq
		b = binary.LittleEndian.AppendUint64(b, 0) // header.stamp
		b = rosString(b, "map")                    // header.frame_id
		b = binary.LittleEndian.AppendUint64(b, 0) // goal_id.stamp
		b = rosString(b, id)                       // goal_id.id
		b = rosString(rosString(b, object), place) // goal.object, goal.place
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(speed))
		return binary.LittleEndian.AppendUint32(b, 0) // goal.ids: no argument
	})
}

// TestActionlibGoalArguments: an actionlib goal's fields, read from the
// action's goal topic, are its segment's arguments, whether the goal
// comes before its first ACTIVE status or after (issue 14: trace checks
// see pick(cup, table), not just pick).
func TestActionlibGoalArguments(t *testing.T) {
	cfg := Config{Sources: []Source{{Topic: "/pick/status", Kind: KindActionlib}}}
	topics, dynamic := cfg.Topics()
	if !slices.Equal(topics, []string{"/pick/status", "/pick/goal"}) || !slices.Equal(dynamic, []bool{false, true}) {
		t.Fatalf("topics %v dynamic %v: the goal topic is subscribed, decoded dynamically", topics, dynamic)
	}
	r := newRig(t, cfg)
	st, gt := "/pick/status", "/pick/goal"
	r.send(gt, 0.5, pickGoal(t, "g1", "cup", "table", 0.5)) // before its status
	r.send(st, 1, goals("", "g1", msg.GoalActive))
	r.send(st, 2, goals("", "g1", msg.GoalSucceeded, "g2", msg.GoalActive))
	r.send(gt, 2.1, pickGoal(t, "g2", "bottle", "shelf", 1)) // after it
	r.send(st, 3, goals("", "g1", msg.GoalSucceeded, "g2", msg.GoalSucceeded))
	r.send(st, 4, goals(""))
	r.flush()
	eps := r.episodes()
	if len(eps) != 1 || len(eps[0].Segments) != 2 {
		t.Fatalf("episodes %d, %s", len(eps), timeline(eps[0]))
	}
	for i, want := range [][]string{{"cup", "table", "0.5"}, {"bottle", "shelf", "1"}} {
		if got := eps[0].Segments[i].Args; !slices.Equal(got, want) {
			t.Errorf("segment %d args %q, want %q", i, got, want)
		}
	}
	if st := r.m.Stats(); st.Unknown != 0 || st.Bad != 0 {
		t.Errorf("stats %+v: goal messages are neither unknown nor bad", st)
	}
	// The transitions have them too, for the trace of the open episode
	// and for recovery after a crash: g1's opening (its goal came
	// first), a goal transition after g2's (its goal came after).
	var opens, late []string
	for _, tr := range eps[0].Transitions {
		switch {
		case tr.Opens != "":
			opens = append(opens, tr.GoalID+":"+strings.Join(tr.Args, " "))
		case tr.Kind == episode.TransitionGoal:
			late = append(late, fmt.Sprintf("%s:%s@%g", tr.GoalID, strings.Join(tr.Args, " "), tr.Sec))
		}
	}
	if !slices.Equal(opens, []string{"g1:cup table 0.5", "g2:"}) || !slices.Equal(late, []string{"g2:bottle shelf 1@1.1"}) {
		t.Errorf("openings %q, goal transitions %q", opens, late)
	}
}

func TestGoalTopic(t *testing.T) {
	for status, want := range map[string]string{"/pick/status": "/pick/goal", "/arm/pick/_action/status": "", "/state": ""} {
		if got := GoalTopic(status); got != want {
			t.Errorf("GoalTopic(%q) = %q, want %q", status, got, want)
		}
	}
}
