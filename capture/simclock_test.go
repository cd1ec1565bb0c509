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

// TestSimClockBurstyReads: on a loaded machine /clock messages are read
// in bursts (ten within a millisecond, then nothing for 100 ms). A
// message read just after a burst is stamped with about the latest
// /clock, not pushed ahead by a rate measured inside the burst (a String
// FSM state was stamped 0.6 s ahead of its /clock this way, and its
// transition landed late: TestRunRecordsTheSimEpisode flaked).
func TestSimClockBurstyReads(t *testing.T) {
	var c simClock
	wall0, sim0 := time.Unix(1000, 0), time.Unix(1700000000, 0)
	const step = 10 * time.Millisecond
	k := 0
	for burst := 0; burst < 20; burst++ {
		for i := 0; i < 10; i++ {
			c.set(sim0.Add(time.Duration(k)*step), wall0.Add(time.Duration(burst)*100*time.Millisecond+time.Duration(i)*100*time.Microsecond))
			k++
		}
		last := sim0.Add(time.Duration(k-1) * step)
		lastRead := wall0.Add(time.Duration(burst)*100*time.Millisecond + 900*time.Microsecond)
		for _, after := range []time.Duration{50 * time.Microsecond, 5 * time.Millisecond, 90 * time.Millisecond} {
			got, ok := c.at(lastRead.Add(after))
			if d := got.Sub(last); !ok || d < 0 || d > 2*step {
				t.Fatalf("burst %d: a message read %v after /clock %v is stamped %v after it, want [0, %v]",
					burst, after, last.Sub(sim0), d, 2*step)
			}
		}
	}
	// Over the bursts sim time ran at wall speed: a message read 100 ms
	// before the latest /clock was read is stamped about 100 ms before it.
	last, _ := c.now()
	got, _ := c.at(wall0.Add(19*100*time.Millisecond + 900*time.Microsecond - 100*time.Millisecond))
	if d := last.Sub(got); d < 50*time.Millisecond || d > 150*time.Millisecond {
		t.Errorf("a message read 100 ms before the latest /clock is stamped %v before it, want about 100 ms", d)
	}
}
