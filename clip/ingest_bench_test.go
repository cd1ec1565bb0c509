package clip

import (
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// ringSink is capture's FrameSink into one ring, as the pipeline's
// frame router is (Put copies the frame, then it is released).
type ringSink struct{ ring *ringbuf.Ring }

func (s ringSink) PutFrame(f capture.Frame) {
	_ = s.ring.Put(&f)
	f.Release()
}

// ingestRounds alternates the two conditions in rounds (each first in
// half of them), so that a neighbour's load on a shared machine and
// warming up fall on both alike.
const ingestRounds = 4

// BenchmarkCaptureWhileClipping (issue 24: capture's frame rate
// unchanged while a clip is written): capture's ingest of 1280x720 JPEG
// CompressedImages from pan720p.mp4 (capture.Replay.Handle decoding
// each, into a ring by Put, at 30 fps stream time), alone and while
// clips of the last 2 s of that ring are written back to back on
// another goroutine, alternating in rounds within one run. It reports
// both rates (frames/s) and clipping/idle (aim >= 0.95, make bench's
// row clip-ingest).
func BenchmarkCaptureWhileClipping(b *testing.B) {
	msgs := panMessages(b)
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 128 << 20, MaxAge: time.Minute, MaxFrames: 1024})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ring.Close)
	rp, err := capture.NewReplay(capture.Config{Cameras: []string{"/cam"}}, capture.Sinks{Frames: ringSink{ring}}, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := policy.Default()
	cfg.Pre, cfg.Post, cfg.MinInterval = 2*time.Second, 0, 0
	s := stageFor(b, cfg, b.TempDir(), Camera{Name: "cam", Topic: "/cam", Ring: ring})
	in := &ingest{rp: rp, msgs: msgs, pub: &ros.PublisherInfo{Type: msg.TypeCompressedImage}}
	in.run(b, 90) // 3 s of frames before the first clip's window
	var idle, clipping time.Duration
	per := max(b.N/(2*ingestRounds), 1)
	b.ReportAllocs()
	b.SetBytes(int64(len(msgs[0])))
	b.ResetTimer()
	for round := range ingestRounds {
		if round%2 == 0 { // each condition goes first in half the rounds
			idle += in.run(b, per)
		}
		stop := in.clipBackToBack(s)
		clipping += in.run(b, per)
		stop()
		if round%2 == 1 {
			idle += in.run(b, per)
		}
	}
	b.StopTimer()
	frames := float64(per * ingestRounds)
	idleRate, clipRate := frames/idle.Seconds(), frames/clipping.Seconds()
	b.ReportMetric(idleRate, "idle-frames/s")
	b.ReportMetric(clipRate, "clipping-frames/s")
	b.ReportMetric(clipRate/idleRate, "clipping/idle")
	b.ReportMetric(float64(in.clips.Load()), "clips")
}

// ingest hands frames to capture at 30 fps of stream time.
type ingest struct {
	rp    *capture.Replay
	msgs  [][]byte
	pub   *ros.PublisherInfo
	n     int
	now   atomic.Int64 // the newest frame's stamp (ns)
	clips atomic.Int64 // clips written
}

// run ingests n frames and returns how long it took.
func (in *ingest) run(b *testing.B, n int) time.Duration {
	start := time.Now()
	for range n {
		m := in.msgs[in.n%len(in.msgs)]
		at := t0.Add(time.Duration(in.n) * time.Second / 30)
		st := rosmsg.FromTime(at)
		binary.LittleEndian.PutUint32(m[4:], st.Sec) // the header's stamp
		binary.LittleEndian.PutUint32(m[8:], st.NSec)
		if err := in.rp.Handle("/cam", in.pub, m, at); err != nil {
			b.Fatal(err)
		}
		in.now.Store(at.UnixNano())
		in.n++
	}
	return time.Since(start)
}

// clipBackToBack writes clips of the ring's last seconds until the
// returned stop is called (which waits for the clip being written).
func (in *ingest) clipBackToBack(s *Stage) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			at := time.Unix(0, in.now.Load()).Add(time.Duration(i)) // a new trigger time each
			if _, err := s.Trigger(Trigger{Kind: KindRequest, Time: at}); err == nil {
				s.Advance(at.Add(settle))
				in.clips.Add(1)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
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
