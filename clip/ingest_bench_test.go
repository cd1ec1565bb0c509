//go:build linux

package clip

import (
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ros/msg"
)

// ingestRounds alternates the two conditions in rounds (each first in
// half of them), so that a neighbour's load on a shared machine and
// warming up fall on both alike.
const ingestRounds = 4

// BenchmarkCaptureWhileClipping (issue 24: capture's frame rate
// unchanged while a clip is written) offers capture what a robot sends:
// three cameras of 1280x720 JPEG CompressedImages (pan720p.mp4) at 30 Hz,
// published on a wall-clock schedule into queues of the ros package's
// size, each read by its capture (capture.Replay.Handle, the live path's
// conversion, into the camera's ring) on its own OS thread. It runs
// once with no clip and once while clips of the rings' last 2 s are
// written back to back, alternating in rounds. One op is one frame
// period (every camera's frame); -benchtime 1800x is 30 s a condition.
//
// Per condition it reports the frames in their ring within 3 frame
// periods of publication per second of schedule (frames/s; what capture
// achieved of the 90 offered: a frame dropped on a full queue or later
// than that is lost), the frames lost (and of those, dropped on a full
// queue), the worst latency and the capture threads' CPU per frame
// (getrusage RUSAGE_THREAD: nothing else runs on those threads); then
// clipping/idle for both (make bench's rows clip-ingest, aim >= 0.999:
// no frame lost, and clip-ingest-cpu).
func BenchmarkCaptureWhileClipping(b *testing.B) {
	msgs := panMessages(b)
	r := newRig(b, msgs)
	per := max(b.N/(2*ingestRounds), 1)
	b.ReportAllocs()
	b.SetBytes(int64(rigCameras * len(msgs[0])))
	r.start()
	b.ResetTimer()
	for round := range ingestRounds {
		if round%2 == 0 { // each condition goes first in half the rounds
			r.run(phaseIdle, per)
		}
		stop := r.clipBackToBack()
		r.run(phaseClipping, per)
		b.StopTimer() // waiting for the clip being written is no frame period
		stop()
		b.StartTimer()
		if round%2 == 1 {
			r.run(phaseIdle, per)
		}
	}
	b.StopTimer()
	st := r.stop(b)
	if r.clipErr != nil {
		b.Fatalf("a clip was refused: %v", r.clipErr)
	}
	reportIngest(b, st, r)
}

// reportIngest adds each condition's figures to the benchmark's line.
func reportIngest(b *testing.B, st [phases]phaseStats, r *rig) {
	rate := func(s phaseStats) float64 { // frames in their ring per second of schedule
		return float64(s.inRing) / float64(max(s.offered, 1)) * rigCameras * rigHz
	}
	cpu := func(s phaseStats) float64 { // µs per frame handled
		return float64(s.cpu.Microseconds()) / float64(max(s.inRing+s.late, 1))
	}
	idle, clipping := st[phaseIdle], st[phaseClipping]
	for _, c := range []struct {
		name string
		s    phaseStats
	}{{"idle", idle}, {"clipping", clipping}} {
		b.ReportMetric(rate(c.s), c.name+"-frames/s")
		b.ReportMetric(float64(c.s.offered-c.s.inRing), c.name+"-lost")
		b.ReportMetric(float64(c.s.dropped), c.name+"-dropped") // of the lost, on a full queue
		b.ReportMetric(float64(c.s.maxLatency)/float64(time.Millisecond), c.name+"-max-ms")
		b.ReportMetric(cpu(c.s), c.name+"-cpu-us/frame")
	}
	b.ReportMetric(rate(clipping)/rate(idle), "clipping/idle")
	b.ReportMetric(cpu(clipping)/cpu(idle), "cpu-clipping/idle")
	b.ReportMetric(float64(r.clips.Load()), "clips")
	b.ReportMetric(float64(r.lag)/float64(time.Millisecond), "publisher-lag-ms")
}

// panMessages are pan720p.mp4's frames (every 10th) as ROS1
// CompressedImages.
func panMessages(b *testing.B) [][]byte {
	var out [][]byte
	for _, p := range sampledata.PanFrames(b, 10) {
		jpeg, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, msg.AppendCompressedImage(nil, 0, t0, "jpeg", jpeg))
	}
	return out
}
