//go:build linux

package clip

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

// A robot's cameras as BenchmarkCaptureWhileClipping offers them:
// three 1280x720 JPEG cameras at 30 Hz.
const (
	rigCameras = 3
	rigHz      = 30
	rigPeriod  = time.Second / rigHz
	// rigLate: a frame in its ring more than this after it was published
	// counts as lost (three frame periods: a consumer of the ring at the
	// camera's rate would have missed it).
	rigLate = 3 * rigPeriod
	// rigPre is each clip's window (post 0): the writer is busy back to
	// back whatever the window, which only sets how much each clip holds.
	rigPre = 2 * time.Second
	// rigRingBytes is each camera's ring: 10 s of its frames and more.
	rigRingBytes = 48 << 20
)

// The two conditions, alternated in rounds within one run.
const (
	phaseIdle = iota
	phaseClipping
	phases
)

// phaseStats is what one condition did to capture.
type phaseStats struct {
	offered, dropped int64 // published; dropped on a full queue (publisher)
	inRing, late     int64 // in its ring within rigLate; later or not at all (capture)
	cpu              time.Duration
	maxLatency       time.Duration
}

func (s *phaseStats) add(o phaseStats) {
	s.offered += o.offered
	s.dropped += o.dropped
	s.inRing += o.inRing
	s.late += o.late
	s.cpu += o.cpu
	s.maxLatency = max(s.maxLatency, o.maxLatency)
}

// published is one message on its way to capture (a buffer of the
// camera's pool, as the ros package's subscription queue holds them).
type published struct {
	data  []byte
	sent  time.Time
	phase int
}

// countingSink is capture's FrameSink into one ring, as the pipeline's
// frame router is (Put copies the frame, then it is released); it counts
// the frames in the ring, on capture's goroutine.
type countingSink struct {
	ring *ringbuf.Ring
	put  int64
}

func (s *countingSink) PutFrame(f capture.Frame) {
	if s.ring.Put(&f) == nil {
		s.put++
	}
	f.Release()
}

// feed is one camera: its queue (ros.DefaultQueueSize messages; when it
// is full a frame is lost, the newest here where a subscription drops its
// oldest: one frame either way), its capture (a Replay,
// the live path's conversion, on one goroutine locked to its OS thread
// so the thread's CPU time is capture's) and its ring.
type feed struct {
	topic string
	queue chan *published
	free  chan *published // the pool: queue's size and the one being handled
	rp    *capture.Replay
	sink  *countingSink
	pub   *ros.PublisherInfo
	byPub [phases]phaseStats // the publisher's
	byCap [phases]phaseStats // capture's, read after it ended
	err   error              // capture's, read after it ended
}

func newFeed(b *testing.B, topic string, size int) *feed {
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: rigRingBytes, MaxAge: 10 * time.Second, MaxFrames: 1024})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ring.Close)
	f := &feed{topic: topic, queue: make(chan *published, ros.DefaultQueueSize),
		free: make(chan *published, ros.DefaultQueueSize+1), sink: &countingSink{ring: ring},
		pub: &ros.PublisherInfo{Type: msg.TypeCompressedImage}}
	f.rp, err = capture.NewReplay(capture.Config{Cameras: []string{topic}}, capture.Sinks{Frames: f.sink}, capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for range cap(f.free) {
		f.free <- &published{data: make([]byte, 0, size)}
	}
	return f
}

// capture hands every queued message to capture until the queue is
// closed, and charges each its thread's CPU and its latency.
func (f *feed) capture() {
	runtime.LockOSThread() // the thread runs nothing else: its CPU time is capture's
	defer runtime.UnlockOSThread()
	last := threadCPU()
	for p := range f.queue {
		before := f.sink.put
		if err := f.rp.Handle(f.topic, f.pub, p.data, time.Now()); err != nil && f.err == nil {
			f.err = err
		}
		latency := time.Since(p.sent)
		now := threadCPU()
		st := &f.byCap[p.phase]
		st.cpu += now - last
		last = now
		st.maxLatency = max(st.maxLatency, latency)
		if f.sink.put > before && latency <= rigLate {
			st.inRing++
		} else {
			st.late++
		}
		f.free <- p // never blocks: the pool's own buffer
	}
}

// publish offers m stamped sent, or drops it when the queue is full.
func (f *feed) publish(ctx context.Context, m []byte, sent time.Time, phase int) {
	f.byPub[phase].offered++
	var p *published
	select {
	case p = <-f.free:
	default:
		f.byPub[phase].dropped++
		return
	}
	p.data = stamp(append(p.data[:0], m...), sent)
	p.sent, p.phase = sent, phase
	select {
	case f.queue <- p:
	case <-ctx.Done():
	}
}

// stamp sets a CompressedImage's header stamp.
func stamp(m []byte, at time.Time) []byte {
	st := rosmsg.FromTime(at)
	binary.LittleEndian.PutUint32(m[4:], st.Sec)
	binary.LittleEndian.PutUint32(m[8:], st.NSec)
	return m
}

// threadCPU is the calling OS thread's CPU time (user and system).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		panic(fmt.Sprintf("getrusage(RUSAGE_THREAD): %v", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rig is the robot: a publisher paced by the wall clock, the cameras'
// captures, and the clip stage over their rings.
type rig struct {
	msgs    [][]byte
	feeds   []*feed
	stage   *Stage
	ctx     context.Context
	wg      sync.WaitGroup
	n       int           // frames published per camera
	lag     time.Duration // the publisher's worst lateness behind its schedule
	clips   atomic.Int64
	clipErr error // the writer's, read after its stop
}

func newRig(b *testing.B, msgs [][]byte) *rig {
	r := &rig{msgs: msgs, ctx: b.Context()}
	size := 0
	for _, m := range msgs {
		size = max(size, len(m))
	}
	var cams []Camera
	for i := range rigCameras {
		f := newFeed(b, fmt.Sprintf("/cam%d", i), size)
		r.feeds = append(r.feeds, f)
		cams = append(cams, Camera{Name: fmt.Sprintf("cam%d", i), Topic: f.topic, Ring: f.sink.ring})
	}
	cfg := policy.Default()
	cfg.Pre, cfg.Post, cfg.MinInterval, cfg.MaxBytes = rigPre, 0, 0, 256<<20
	r.stage = stageWith(b, cfg, b.TempDir(), Options{}, cams...) // its own writer goroutine, as edged's
	r.prefill(b, size)
	return r
}

// prefill fills every ring, stamped up to now, around its arena once
// (a robot's capture runs in pages touched long ago: the first touch of
// each would be charged to the first condition) and the first clip's
// window full.
func (r *rig) prefill(b *testing.B, size int) {
	smallest := size
	for _, m := range r.msgs {
		smallest = min(smallest, len(m))
	}
	frames := rigRingBytes/smallest + int(rigPre/rigPeriod) + 1
	start := time.Now().Add(-time.Duration(frames) * rigPeriod)
	buf := make([]byte, 0, size)
	for _, f := range r.feeds {
		for k := range frames {
			at := start.Add(time.Duration(k) * rigPeriod)
			buf = stamp(append(buf[:0], r.msgs[k%len(r.msgs)]...), at)
			if err := f.rp.Handle(f.topic, f.pub, buf, at); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// start starts the captures; stop closes their queues, waits for them
// and returns each condition's figures, every camera's summed.
func (r *rig) start() {
	for _, f := range r.feeds {
		r.wg.Go(f.capture)
	}
}

func (r *rig) stop(b *testing.B) (st [phases]phaseStats) {
	for _, f := range r.feeds {
		close(f.queue)
	}
	r.wg.Wait()
	for _, f := range r.feeds {
		if f.err != nil {
			b.Fatalf("%s: %v", f.topic, f.err)
		}
		for ph := range phases {
			st[ph].add(f.byPub[ph])
			st[ph].add(f.byCap[ph])
		}
	}
	return st
}

// run publishes n frames per camera at rigHz, on a schedule of the wall
// clock (a late publisher catches up), every camera's at each tick.
func (r *rig) run(phase, n int) {
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for k := range n {
		due := start.Add(time.Duration(k) * rigPeriod)
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-r.ctx.Done():
				return
			}
		}
		sent := time.Now()
		r.lag = max(r.lag, sent.Sub(due))
		m := r.msgs[r.n%len(r.msgs)]
		for _, f := range r.feeds {
			f.publish(r.ctx, m, sent, phase)
		}
		r.n++
	}
}

// clipBackToBack has the stage's writer goroutine write clips of the
// rings' last rigPre, one after the other, until the returned stop is
// called (which waits for the clip being written); a refused or failed
// clip ends it (rig.clipErr).
func (r *rig) clipBackToBack() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			at := time.Now()
			p, err := r.stage.Trigger(Trigger{Kind: KindRequest, Time: at})
			if err == nil {
				r.stage.Advance(at.Add(settle)) // the window ended: the writer takes it
				_, err = p.Wait(r.ctx)
			}
			if err != nil {
				r.clipErr = err
				return
			}
			r.clips.Add(1)
		}
	})
	return func() { close(done); wg.Wait() }
}
