package ship

import (
	"bytes"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
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
	r := NewRecorder(SnippetConfig{Rate: 4})
	for i := range 200 { // 100 Hz for 2 s, two topics
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.PutJoints(capture.JointSample{Topic: "/arm", Stamp: at, Names: []string{"a", "b"},
			Position: []float64{float64(i), -float64(i)}, Velocity: []float64{1, 2}})
		if i%10 == 0 {
			r.PutJoints(capture.JointSample{Topic: "/grip", Stamp: at, Names: []string{"g"}, Position: []float64{0.5}})
		}
	}
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
	r := NewRecorder(SnippetConfig{MaxSamples: 10})
	for i := range 100 {
		r.PutJoints(capture.JointSample{Topic: "/j", Stamp: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	if len(r.samples) != 10 || r.Dropped() != 90 {
		t.Fatalf("samples %d dropped %d", len(r.samples), r.Dropped())
	}
}

// A snippet from an older robot, with the FSM "states" and "transitions"
// it used to carry, still decodes: the keys are skipped, so nothing
// downstream of the decoder sees the labels.
func TestOldSnippetDecodesWithoutTheFSM(t *testing.T) {
	sn := &wire.Snippet{Episode: "ep", Camera: "/cam", SheetIndex: 1, Names: []string{"a"},
		Samples: []wire.JointSample{{Tick: 1, Position: []float64{1}, Velocity: []float64{0}, Effort: []float64{0}}}}
	raw, err := sn.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != 0x80|9 { // a fixmap of the 9 current keys
		t.Fatalf("snippet map header %#x, this test expects 9 keys", raw[0])
	}
	raw[0] = 0x80 | 11
	raw = msgp.AppendString(raw, "states")
	raw = msgp.AppendArrayHeader(raw, 1)
	raw = msgp.AppendMapHeader(raw, 2)
	raw = msgp.AppendInt64(msgp.AppendString(raw, "tick"), 1)
	raw = msgp.AppendString(msgp.AppendString(raw, "state"), "PICK_SECRET")
	raw = msgp.AppendString(raw, "transitions")
	raw = msgp.AppendArrayHeader(raw, 1)
	raw = msgp.AppendMapHeader(raw, 2)
	raw = msgp.AppendInt64(msgp.AppendString(raw, "stamp"), 5)
	raw = msgp.AppendString(msgp.AppendString(raw, "label"), "PICK_SECRET")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	back, err := wire.DecodeSnippet(enc.EncodeAll(raw, nil))
	if err != nil {
		t.Fatalf("old snippet: %v", err)
	}
	again, err := back.MarshalMsg(nil)
	if err != nil || back.Names[0] != "a" || bytes.Contains(again, []byte("PICK_SECRET")) {
		t.Fatalf("old snippet decoded to %+v (%v)", back, err)
	}
}

// floodSample is a joint sample of n distinct short names, as capture
// decodes a name flood (each name its own string).
func floodSample(at time.Time, n int) capture.JointSample {
	names := make([]string, n)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return capture.JointSample{Topic: "/joint_states", Stamp: at, Names: names}
}

// The recorder is bounded in bytes, not only in samples: samples of
// many joints push the oldest out past MaxBytes (a writer of 125,000
// names per message filled 8,192 slots with ~3 MB each, 900 MB in 22 s),
// one larger than the budget is not kept, and the heap stays within the
// budget; an ordinary sample after the flood is kept and snipped.
func TestRecorderBytesBound(t *testing.T) {
	cases := []struct {
		name     string
		maxBytes int
		names    int // per flood sample
		samples  int
		dropped  int
	}{
		{"default budget, 125k names", 0, 125_000, 40, 40 - DefaultSnippetBytes/SampleBytes(floodSample(t0, 125_000))},
		{"small budget", 1 << 20, 10_000, 10, 10 - (1<<20)/SampleBytes(floodSample(t0, 10_000))},
		{"a sample over the budget", 1 << 20, 200_000, 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRecorder(SnippetConfig{MaxBytes: c.maxBytes})
			budget := r.cfg.MaxBytes
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range c.samples {
				r.PutJoints(floodSample(t0.Add(time.Duration(i)*time.Millisecond), c.names))
			}
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if r.Bytes() > budget {
				t.Errorf("Bytes() %d over the budget %d", r.Bytes(), budget)
			}
			if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > int64(budget)+16<<20 {
				t.Errorf("heap grew %d MB for a budget of %d MB", grown>>20, budget>>20)
			}
			if r.Dropped() != uint64(c.dropped) {
				t.Errorf("Dropped() %d, want %d", r.Dropped(), c.dropped)
			}
			r.PutJoints(capture.JointSample{Topic: "/arm", Stamp: t0.Add(10 * time.Second), Names: []string{"a"}, Position: []float64{1}})
			if sn := r.ForSheet("ep", meta(20, 1)); len(sn.Samples) != 1 || !slices.Equal(sn.Names, []string{"a"}) || sn.Samples[0].Position[0] != 1 {
				t.Errorf("the ordinary sample after the flood: names %d, samples %+v", len(sn.Names), sn.Samples)
			}
			runtime.KeepAlive(r)
		})
	}
}
