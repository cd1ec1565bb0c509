package fsm

import (
	"context"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// TestClock: between events the machine reads the stream clock it is
// given (Config.Clock, or the latest stamp moved on by Advance), never
// the wall clock, so a replay's episodes do not depend on how fast it
// ran. The episode open at Close used to end at the last stamp plus the
// wall time since it arrived.
func TestClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		clock   func() (time.Time, bool)
		advance float64 // seconds; 0: no Advance
		want    []string
		wantEnd float64 // of the last episode
	}{
		{name: "no clock: Close ends at the last stamp", want: []string{"a[0-3]completed b[3-3]interrupted"}, wantEnd: 3},
		{name: "a clock with no reading: the last stamp", clock: func() (time.Time, bool) { return time.Time{}, false },
			want: []string{"a[0-3]completed b[3-3]interrupted"}, wantEnd: 3},
		{name: "the clock's reading", clock: func() (time.Time, bool) { return at(7), true },
			want: []string{"a[0-3]completed b[3-7]interrupted"}, wantEnd: 7},
		{name: "Advance moves the end", advance: 8, want: []string{"a[0-3]completed b[3-8]interrupted"}, wantEnd: 8},
		{name: "Advance past max_duration cuts as often as due", advance: 25, want: []string{
			"a[0-3]completed b[3-10]interrupted", "b[0-10]interrupted", "b[0-5]interrupted"}, wantEnd: 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Config{Sources: []Source{{Topic: "/s"}}, MaxDuration: 10 * time.Second, Clock: tc.clock})
			r.send("/s", 0, str("a"))
			r.send("/s", 3, str("b"))
			if tc.advance > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := r.m.Advance(ctx, at(tc.advance)); err != nil {
					t.Fatal(err)
				}
			}
			eps := r.episodes()
			if len(eps) != len(tc.want) {
				t.Fatalf("%d episodes, want %d", len(eps), len(tc.want))
			}
			for i, e := range eps {
				if got := timeline(e); got != tc.want[i] {
					t.Errorf("episode %d: %s, want %s", i, got, tc.want[i])
				}
			}
			last := eps[len(eps)-1].Manifest
			if !last.End.Equal(at(tc.wantEnd)) || last.EndReason != episode.EndShutdown {
				t.Errorf("last episode ends at %v (%s), want %v", last.End, last.EndReason, at(tc.wantEnd))
			}
		})
	}
}
