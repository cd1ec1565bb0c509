package fsm

import (
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// TestClockResetStartsOver: time that jumps backwards (rosbag play
// --loop under /use_sim_time, a restarted simulator) closes the open
// episode at the last time seen and records the next loop in its own
// time (issue 11: every later loop gave 0-second episodes at the bag's
// end time).
func TestClockResetStartsOver(t *testing.T) {
	loop := []struct {
		sec   float64
		state string
	}{{0, "idle"}, {1, "reach"}, {3, "grasp"}, {5, "idle"}}
	tests := []struct {
		name      string
		firstLoop int // events of the first loop played before the jump
		first     string
		reason    string
	}{
		{"between episodes", 4, "reach[0-2]completed grasp[2-4]completed", episode.EndIdle},
		{"mid-episode", 3, "reach[0-2]completed grasp[2-2]interrupted", episode.EndClockReset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Config{Sources: []Source{{Topic: "/task_state", IdleStates: []string{"idle"}}}})
			for _, e := range loop[:tc.firstLoop] {
				r.send("/task_state", e.sec, str(e.state))
			}
			for _, e := range loop {
				r.send("/task_state", e.sec, str(e.state))
			}
			r.flush()
			if st := r.m.Stats(); st.ClockResets != 1 {
				t.Errorf("ClockResets = %d, want 1", st.ClockResets)
			}
			eps := r.episodes()
			if len(eps) != 2 {
				t.Fatalf("%d episodes, want one per loop", len(eps))
			}
			if got := timeline(eps[0]); got != tc.first || eps[0].Manifest.EndReason != tc.reason {
				t.Errorf("first loop: %q (%s), want %q (%s)", got, eps[0].Manifest.EndReason, tc.first, tc.reason)
			}
			second := eps[1].Manifest
			if got := timeline(eps[1]); got != "reach[0-2]completed grasp[2-4]completed" ||
				!second.Start.Equal(at(1)) || !second.End.Equal(at(5)) || second.EndReason != episode.EndIdle {
				t.Errorf("second loop: %q %+v", got, second)
			}
		})
	}
}
