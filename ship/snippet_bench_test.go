package ship

import (
	"strconv"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/uplink/wire"
)

// fullRecorder is a Recorder in steady state: its ring full of a 7-joint
// arm at 100 Hz (MaxSamples, about 82 s), the newest sample at 80 s.
func fullRecorder(b *testing.B) *Recorder {
	b.Helper()
	r := NewRecorder(SnippetConfig{})
	names := make([]string, 7)
	for i := range names {
		names[i] = "joint_" + strconv.Itoa(i)
	}
	for i := range r.cfg.MaxSamples {
		at := t0.Add(80*time.Second - time.Duration(r.cfg.MaxSamples-1-i)*10*time.Millisecond)
		r.PutJoints(capture.JointSample{Topic: "/joint_states", Stamp: at, Names: names,
			Position: make([]float64, 7), Velocity: make([]float64, 7), Effort: make([]float64, 7)})
	}
	return r
}

// BenchmarkForSheet cuts the snippet of the last 10-s sheet from a full
// ring, as the sheet loop does for every contact sheet; bytes are the
// snippet's encoded size.
func BenchmarkForSheet(b *testing.B) {
	r := fullRecorder(b)
	m := meta(140, 20) // ticks 70 s .. 79.5 s
	body, err := wire.EncodeSnippet(r.ForSheet("ep", m))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if sn := r.ForSheet("ep", m); len(sn.Samples) != 20 {
			b.Fatalf("%d samples", len(sn.Samples))
		}
	}
}
