package snippet

import (
	"math"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

var t0 = time.Unix(1700000000, 0)

func meta(first, n int64) *sheet.Meta {
	m := &sheet.Meta{Kind: "episode", Index: 2, Camera: "/cam", EpisodeStart: sheet.ROSTimeOf(t0), IntervalSeconds: 0.5}
	for k := first; k < first+n; k++ {
		m.Tiles = append(m.Tiles, sheet.TileMeta{Tick: k})
	}
	return m
}

func TestForSheet(t *testing.T) {
	r := New(Config{Rate: 4})
	for i := range 200 { // 100 Hz for 2 s, two topics
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.PutJoints(capture.JointSample{Topic: "/arm", Stamp: at, Names: []string{"a", "b"},
			Position: []float64{float64(i), -float64(i)}, Velocity: []float64{1, 2}})
		if i%10 == 0 {
			r.PutJoints(capture.JointSample{Topic: "/grip", Stamp: at, Names: []string{"g"}, Position: []float64{0.5}})
		}
	}
	r.PutTransition(t0.Add(-time.Second), "IDLE")
	r.PutTransition(t0.Add(700*time.Millisecond), "PICK")
	sn := r.ForSheet("ep1", meta(0, 3)) // ticks at 0, 0.5, 1.0 s
	if got := sn.Names; len(got) != 3 || got[2] != "g" {
		t.Fatalf("names %v", got)
	}
	ticks := 0
	for _, s := range sn.Samples {
		if s.Tick >= 0 {
			want := float64(s.Tick * 50)
			if s.Position[0] != want || s.Position[1] != -want || s.Position[2] != 0.5 || !math.IsNaN(s.Effort[0]) {
				t.Errorf("tick %d: %v", s.Tick, s.Position)
			}
			ticks++
		}
	}
	if ticks != 3 || len(sn.Samples) != 3+5 {
		t.Fatalf("%d tick samples, %d in all", ticks, len(sn.Samples))
	}
	if sn.States[0].State != "IDLE" || sn.States[2].State != "PICK" || len(sn.Transitions) != 1 {
		t.Fatalf("states %v transitions %v", sn.States, sn.Transitions)
	}
	b, err := wire.EncodeSnippet(sn)
	if err != nil {
		t.Fatal(err)
	}
	back, err := wire.DecodeSnippet(b)
	if err != nil || back.Samples[1].Position[0] != sn.Samples[1].Position[0] {
		t.Fatalf("round trip: %v", err)
	}
}

func TestBounded(t *testing.T) {
	r := New(Config{MaxSamples: 10, MaxTransitions: 4})
	for i := range 100 {
		r.PutJoints(capture.JointSample{Topic: "/j", Stamp: t0.Add(time.Duration(i) * time.Millisecond)})
		r.PutTransition(t0, "S")
	}
	if len(r.samples) != 10 || len(r.trans) > 4 || r.Dropped() != 90 {
		t.Fatalf("samples %d transitions %d dropped %d", len(r.samples), len(r.trans), r.Dropped())
	}
}
