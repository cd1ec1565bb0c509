package wire

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// format1 encodes s as robots before format 2 did: zstd(msgpack(Snippet)).
func format1(t *testing.T, s *Snippet) []byte {
	t.Helper()
	raw, err := s.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return encoder().EncodeAll(raw, nil)
}

// movingArm is a sheet's snippet of a 29-joint arm in motion (the cost
// benchmark's), sampled at 20 ticks.
func movingArm() *Snippet {
	s := &Snippet{Episode: "ep", Camera: "/cam", SheetIndex: 7, EpisodeStart: 1e18, Interval: 5e8, FirstTick: 140, LastTick: 159}
	for j := range 29 {
		s.Names = append(s.Names, "joint_"+string(rune('a'+j%26))+string(rune('a'+j/26)))
	}
	for k := s.FirstTick; k <= s.LastTick; k++ {
		x := float64(k) / 2
		js := JointSample{Tick: k, Stamp: s.EpisodeStart + k*s.Interval, Source: s.EpisodeStart + k*s.Interval - 4e6}
		for j := range s.Names {
			w := 0.3 + 0.07*float64(j)
			js.Position = append(js.Position, math.Sin(w*x+float64(j)))
			js.Velocity = append(js.Velocity, w*math.Cos(w*x+float64(j)))
			js.Effort = append(js.Effort, 2*math.Sin(1.7*w*x))
		}
		s.Samples = append(s.Samples, js)
	}
	return s
}

// TestSnippetRoundTrip: format 2 gives back every field; values exactly
// when float32 holds them (NaN and infinities too), else within float32's
// rounding.
func TestSnippetRoundTrip(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	exact := &Snippet{Episode: "ep", Camera: "/cam", SheetIndex: 3, EpisodeStart: 1776842526000000000, Interval: 5e8,
		FirstTick: 40, LastTick: 41, Names: []string{"a", "b"}, Samples: []JointSample{
			{Tick: 40, Stamp: 1776842546000000000, Source: 1776842545997000000, Position: []float64{0.5, nan}, Velocity: []float64{-1.25, inf}, Effort: []float64{0, -inf}},
			{Tick: -1, Stamp: 1776842546250000000, Source: 0, Position: []float64{nan, nan}, Velocity: []float64{nan, nan}, Effort: []float64{nan, nan}},
			{Tick: 41, Stamp: 1776842546500000000, Source: 1776842546500000000, Position: []float64{0.75, 3}, Velocity: []float64{1, 2}, Effort: []float64{-8, 1024}},
		}}
	for _, tc := range []struct {
		name string
		in   *Snippet
		tol  float64 // relative; 0: bit for bit
	}{
		{"float32 values", exact, 0},
		{"no samples", &Snippet{Episode: "ep", Camera: "/cam", Names: []string{"a"}}, 0},
		{"no names", &Snippet{Episode: "ep", Camera: "/cam", Samples: []JointSample{{Tick: 1, Stamp: 5, Source: 4}}}, 0},
		{"moving arm", movingArm(), 1e-7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := EncodeSnippet(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeSnippet(b)
			if err != nil {
				t.Fatal(err)
			}
			sameSnippet(t, back, tc.in, tc.tol)
		})
	}
}

func sameSnippet(t *testing.T, got, want *Snippet, tol float64) {
	t.Helper()
	g, w := *got, *want
	g.Samples, w.Samples = nil, nil
	if len(g.Names) == 0 && len(w.Names) == 0 {
		g.Names, w.Names = nil, nil
	}
	if !reflect.DeepEqual(g, w) || len(got.Samples) != len(want.Samples) {
		t.Fatalf("got %+v (%d samples), want %+v (%d)", g, len(got.Samples), w, len(want.Samples))
	}
	for i, ws := range want.Samples {
		gs := got.Samples[i]
		if gs.Tick != ws.Tick || gs.Stamp != ws.Stamp || gs.Source != ws.Source {
			t.Errorf("sample %d: tick, stamp, source %d %d %d, want %d %d %d", i, gs.Tick, gs.Stamp, gs.Source, ws.Tick, ws.Stamp, ws.Source)
		}
		for f, pair := range [][2][]float64{{gs.Position, ws.Position}, {gs.Velocity, ws.Velocity}, {gs.Effort, ws.Effort}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("sample %d field %d: %d values, want %d", i, f, len(pair[0]), len(pair[1]))
			}
			for k, v := range pair[1] {
				g := pair[0][k]
				if math.IsNaN(v) != math.IsNaN(g) || (!math.IsNaN(v) && math.Abs(g-v) > tol*math.Abs(v)) {
					t.Errorf("sample %d field %d joint %d: %v, want %v", i, f, k, g, v)
				}
			}
		}
	}
}

// TestSnippetFormat1Reads: a snippet an older robot shipped
// (testdata/snippet-format1.msgpack.zst, written by format 1's encoder)
// still reads, as does one encoded in format 1 now.
func TestSnippetFormat1Reads(t *testing.T) {
	b, err := os.ReadFile("testdata/snippet-format1.msgpack.zst")
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSnippet(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Episode != "arm-01-20260422T072206Z" || s.SheetIndex != 3 || len(s.Names) != 3 || s.Names[1] != "elbow" ||
		len(s.Samples) != 4 || s.Samples[2].Tick != 42 || s.Samples[2].Position[0] != 4.2 || s.Samples[0].Source != 1776842545997000000 ||
		s.Samples[3].Tick != -1 || s.Samples[3].Source != 0 || !math.IsNaN(s.Samples[0].Effort[2]) {
		t.Fatalf("format 1 fixture: %+v", s)
	}
	arm := movingArm()
	back, err := DecodeSnippet(format1(t, arm))
	if err != nil {
		t.Fatal(err)
	}
	sameSnippet(t, back, arm, 0)
}

// TestSnippetCompact: a moving arm's snippet takes at most 45% of the
// bytes of format 1 (the cost benchmark's 5.3 MB per camera-hour).
func TestSnippetCompact(t *testing.T) {
	arm := movingArm()
	b, err := EncodeSnippet(arm)
	if err != nil {
		t.Fatal(err)
	}
	old := format1(t, arm)
	if len(b) > len(old)*45/100 {
		t.Fatalf("format 2: %d bytes, format 1: %d; want at most 45%%", len(b), len(old))
	}
	t.Logf("format 2: %d bytes, format 1: %d", len(b), len(old))
}

// TestSnippetPackedRefused: a format 2 body whose columns disagree, or
// of a newer format, is an error saying what is wrong.
func TestSnippetPackedRefused(t *testing.T) {
	good, err := pack(movingArm())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(p *PackedSnippet)
		want string
	}{
		{"newer format", func(p *PackedSnippet) { p.Format = 3 }, "upgrade the receiver"},
		{"values short", func(p *PackedSnippet) { p.Values = p.Values[:len(p.Values)-4] }, "value bytes"},
		{"stamps short", func(p *PackedSnippet) { p.Stamps = p.Stamps[1:] }, "stamps"},
		{"a name more", func(p *PackedSnippet) { p.Names = append(p.Names, "x") }, "value bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := *good
			tc.edit(&p)
			raw, err := p.MarshalMsg(nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DecodeSnippet(encoder().EncodeAll(raw, nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := EncodeSnippet(&Snippet{Names: []string{"a"}, Samples: []JointSample{{Position: []float64{1}}}}); err == nil {
		t.Fatal("a sample without one value per name encoded")
	}
}
