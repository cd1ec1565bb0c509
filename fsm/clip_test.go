package fsm

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/edged-robotics/edged/ros/msg"
)

// A state name longer than a record may hold is stored cut and counted,
// never dropped with its segment; and a failure long past does not make
// a clean stop fail.
func TestLongLabelsAreTruncatedAndCounted(t *testing.T) {
	huge := strings.Repeat("é", 1<<20) // 2 MiB
	for _, tc := range []struct {
		name   string
		source Source
		state  any
	}{
		{"string", Source{Topic: "/s", IdleStates: []string{"idle"}}, str(huge)},
		{"smach", Source{Topic: "/sm", Kind: KindSmach}, smach("/SM", huge)},
		{"actionlib", Source{Topic: "/pick/status", Kind: KindActionlib}, &msg.GoalStatusArray{StatusList: []msg.GoalStatus{
			{GoalID: msg.GoalID{ID: huge}, Status: msg.GoalActive, Text: huge}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Config{Sources: []Source{tc.source}, InstructionTopic: "/instr"})
			r.send("/instr", 0, str(huge))
			r.send(tc.source.Topic, 0, tc.state)
			r.send(tc.source.Topic, 1, str("x")) // wrong type for smach/actionlib: a bad event, not a store failure
			r.send("/s", 2, str("idle"))
			r.flush()
			st := r.m.Stats()
			if st.Truncated < 2 || st.StoreErrors != 0 {
				t.Fatalf("stats %+v", st)
			}
			eps := r.episodes() // Close must not fail
			if len(eps) != 1 || len(eps[0].Segments) == 0 {
				t.Fatalf("episodes %v", eps)
			}
			sg := eps[0].Segments[0]
			if len(sg.Label) > MaxLabelBytes || !strings.HasSuffix(sg.Label, truncatedMark) || !utf8.ValidString(sg.Label) ||
				len(sg.Path) > MaxLabelBytes || len(sg.GoalID) > MaxLabelBytes {
				t.Fatalf("segment label %d bytes, path %d, goal %d", len(sg.Label), len(sg.Path), len(sg.GoalID))
			}
			if n := len(eps[0].Manifest.Instruction); n > MaxInstructionBytes || n == 0 {
				t.Fatalf("instruction of %d bytes", n)
			}
		})
	}
}
