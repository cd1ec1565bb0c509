package capture

import (
	"testing"
	"time"
)

// TestSimClockStampsArrival: a message is stamped with the sim time of
// its arrival, not of the moment it is handled.
func TestSimClockStampsArrival(t *testing.T) {
	wall0 := time.Unix(1000, 0)
	sim0 := time.Unix(1700000000, 0)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var c simClock
	if _, ok := c.at(wall0); ok {
		t.Fatal("a clock before the first /clock must not be ok")
	}
	// /clock at 100 Hz, sim running at rate 2 (rosbag play -r 2).
	for k := 0; k <= 100; k++ {
		c.set(sim0.Add(ms(20*k)), wall0.Add(ms(10*k)))
	}
	last := sim0.Add(ms(2000)) // read at wall0+1s
	cases := []struct {
		name string
		read time.Time
		want time.Time
	}{
		{"no wall time: the latest clock", time.Time{}, last},
		{"read with the latest clock", wall0.Add(ms(1000)), last},
		{"read 5 ms after it", wall0.Add(ms(1005)), last.Add(ms(10))},
		{"read 100 ms before it, handled late", wall0.Add(ms(900)), last.Add(-ms(200))},
		{"read long after: at most two periods ahead", wall0.Add(ms(5000)), last.Add(ms(40))},
		{"read long before: at most a second back", wall0.Add(-ms(5000)), last.Add(-ms(2000))},
	}
	for _, tc := range cases {
		got, ok := c.at(tc.read)
		if !ok || got.Sub(tc.want).Abs() > time.Millisecond {
			t.Errorf("%s: %v, want %v", tc.name, got.Sub(sim0), tc.want.Sub(sim0))
		}
	}
}

// TestSimClockPaused: while the player is paused /clock repeats one time
// and the rate falls to 0, so arrivals are not pushed forward.
func TestSimClockPaused(t *testing.T) {
	var c simClock
	wall0, sim0 := time.Unix(1000, 0), time.Unix(5000, 0)
	for k := 0; k < 50; k++ {
		c.set(sim0, wall0.Add(time.Duration(k)*10*time.Millisecond))
	}
	got, _ := c.at(wall0.Add(495 * time.Millisecond))
	if d := got.Sub(sim0); d > time.Millisecond {
		t.Fatalf("paused clock moved %v", d)
	}
}
