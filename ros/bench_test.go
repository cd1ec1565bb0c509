package ros

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// benchmarkIngest streams frames of size bytes from an in-process Go
// TCPROS publisher over loopback; one op is one message received and
// released (through Messages(), or by a Handler on the reader goroutine
// when direct). Steady state must show 0 allocs/op.
func benchmarkIngest(b *testing.B, size int, direct bool) {
	if direct {
		benchmarkIngestDirect(b, size)
		return
	}
	cfg := testConfig("http://127.0.0.1:1/") // no master needed: the publisher is set directly
	cfg.MasterPollInterval = time.Hour       // keep the watcher's allocations out of allocs/op
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	body := make([]byte, size)
	frame := rostest.AppendFrame(nil, body)
	pub := rostest.StartFakePublisher(b, nil, rostest.FakePublisherConfig{NodeName: "/bench", Topic: "/bench", Type: "sensor_msgs/Image",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/bench", "/bench", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", false)
			for ctx.Err() == nil {
				if _, err := conn.Write(frame); err != nil {
					return
				}
			}
		}})
	s, err := n.Subscribe(context.Background(), SubscribeOptions{Topic: "/bench"})
	if err != nil {
		b.Fatal(err)
	}
	s.setPublishers([]string{pub.URI})
	for i := 0; i < 64; i++ { // warm the pools
		(<-s.Messages()).Release()
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	sw0 := switches()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := <-s.Messages()
		m.Release()
	}
	b.StopTimer()
	switches().sub(sw0).report(b, b.N) // the publisher's included: it runs in this process
	pub.Close()
	_ = s.Close()
}

// benchmarkIngestDirect is benchmarkIngest with a Handler (capture's
// path): no goroutine between the socket reader and the consumer.
func benchmarkIngestDirect(b *testing.B, size int) {
	cfg := testConfig("http://127.0.0.1:1/")
	cfg.MasterPollInterval = time.Hour
	n, err := NewNode(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	frame := rostest.AppendFrame(nil, make([]byte, size))
	pub := rostest.StartFakePublisher(b, nil, rostest.FakePublisherConfig{NodeName: "/bench", Topic: "/bench", Type: "sensor_msgs/Image",
		OnConnect: func(ctx context.Context, conn net.Conn, _ tcpros.Header) {
			_ = rostest.WritePublisherHeader(conn, "/bench", "/bench", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", false)
			for ctx.Err() == nil {
				if _, err := conn.Write(frame); err != nil {
					return
				}
			}
		}})
	var handled, target atomic.Int64
	var fired atomic.Bool
	target.Store(math.MaxInt64)
	done := make(chan struct{}, 1)
	s, err := n.Subscribe(context.Background(), SubscribeOptions{Topic: "/bench", Handler: func(m *Message) {
		m.Release()
		if handled.Add(1) >= target.Load() && fired.CompareAndSwap(false, true) {
			done <- struct{}{} // once (buffered: never blocks)
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	s.setPublishers([]string{pub.URI})
	poll.Until(b, 30*time.Second, "the pools warmed", func() bool { return handled.Load() >= 64 })
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	sw0, h0 := switches(), handled.Load()
	b.ResetTimer()
	target.Store(h0 + int64(b.N) + 1) // +1: a message may be in hand already
	<-done                            // the reader does the work; this goroutine sleeps
	b.StopTimer()
	switches().sub(sw0).report(b, int(handled.Load()-h0))
	pub.Close()
	_ = s.Close()
}

// BenchmarkIngestImage720p: 1280x720 rgb8 Image frames, through
// Messages() and by a Handler.
func BenchmarkIngestImage720p(b *testing.B) {
	for _, direct := range []bool{false, true} {
		b.Run(ingestPath(direct), func(b *testing.B) { benchmarkIngest(b, 1280*720*3+60, direct) })
	}
}

// BenchmarkIngestJointState: 26-joint JointState frames, both paths.
func BenchmarkIngestJointState(b *testing.B) {
	for _, direct := range []bool{false, true} {
		b.Run(ingestPath(direct), func(b *testing.B) { benchmarkIngest(b, 26*(4+9)+3*(4+26*8)+20, direct) })
	}
}

func ingestPath(direct bool) string {
	if direct {
		return "handler"
	}
	return "queue"
}

// BenchmarkIngestLive subscribes to real publishers on an external
// master, for scripts/bench-ros.sh: EDGED_BENCH_MASTER (required, else
// skipped), EDGED_BENCH_TOPICS (comma-separated), EDGED_BENCH_SECONDS,
// EDGED_BENCH_NODE (default /edged_bench), EDGED_BENCH_START (the
// window's start, Unix seconds: both subscribers of the script measure
// the same window, so their counts compare; default: once warm).
// Run it with -benchtime 1x. It prints one line:
//
//	edged messages=N bytes=B cpu_s=C drops=D seq_gaps=G reconnects=R max_idle_ms=I allocs_per_msg=A ctxsw_per_msg=S wakeups_per_msg=W
//
// max_idle_ms is the longest wait between two messages of one topic: a
// stall of this side shows there (and in seq_gaps) while the other
// side's stays near the slowest topic's period.
func BenchmarkIngestLive(b *testing.B) {
	uri := os.Getenv("EDGED_BENCH_MASTER")
	if uri == "" {
		b.Skip("EDGED_BENCH_MASTER not set: run scripts/bench-ros.sh")
	}
	topics := strings.Split(os.Getenv("EDGED_BENCH_TOPICS"), ",")
	seconds, _ := strconv.ParseFloat(os.Getenv("EDGED_BENCH_SECONDS"), 64)
	if seconds <= 0 {
		seconds = 10
	}
	// Production defaults (poll 1s, re-resolve 10s), as edged runs.
	// EDGED_BENCH_NODE names the node, for two builds side by side.
	name := cmp.Or(os.Getenv("EDGED_BENCH_NODE"), "/edged_bench")
	n, err := NewNode(context.Background(), Config{MasterURI: uri, NodeName: name, Logger: testLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	// Each message is counted by a Handler on its reader goroutine, as
	// capture takes it (no hand-off per message).
	counters := make([]liveCounter, len(topics))
	var subs []*Subscription
	for i, t := range topics {
		s, err := n.Subscribe(context.Background(), SubscribeOptions{Topic: t, QueueSize: 64, TCPNoDelay: true,
			Handler: counters[i].handle})
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, s)
	}
	poll.Until(b, 30*time.Second, "every topic delivered", func() bool { return allSeen(counters) })
	waitForWindow(b)
	baseStats := make([]SubscriptionStats, len(subs))
	for i, s := range subs {
		baseStats[i] = s.Stats()
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, sw0 := cpuSeconds(), switches()
	for i := range counters {
		counters[i].measure(true)
	}
	time.Sleep(time.Duration(seconds * float64(time.Second)))
	cpu, sw := cpuSeconds()-cpu0, switches().sub(sw0)
	for i := range counters {
		counters[i].measure(false)
	}
	runtime.ReadMemStats(&ms1)
	var msgs, bytes, drops, gaps, reconnects uint64
	var maxIdle time.Duration
	for i, s := range subs {
		st := s.Stats()
		msgs += st.Messages - baseStats[i].Messages
		bytes += st.Bytes - baseStats[i].Bytes
		drops += st.Drops - baseStats[i].Drops
		reconnects += st.Reconnects - baseStats[i].Reconnects
		gaps += counters[i].gaps
		maxIdle = max(maxIdle, counters[i].maxIdle)
	}
	allocs := float64(ms1.Mallocs-ms0.Mallocs) / float64(max(msgs, 1))
	perMsg := func(n int64) float64 { return float64(n) / float64(max(msgs, 1)) }
	fmt.Printf("edged messages=%d bytes=%d cpu_s=%.3f drops=%d seq_gaps=%d reconnects=%d max_idle_ms=%.1f "+
		"allocs_per_msg=%.3f ctxsw_per_msg=%.3f wakeups_per_msg=%.3f\n",
		msgs, bytes, cpu, drops, gaps, reconnects, maxIdle.Seconds()*1e3, allocs, perMsg(sw.voluntary+sw.involuntary), perMsg(sw.voluntary))
	b.ReportMetric(cpu/(float64(bytes)/1e9), "cpu-s/GB")
	b.ReportMetric(float64(drops), "drops")
	b.ReportMetric(allocs, "allocs/msg")
	sw.report(b, int(msgs))
}

// waitForWindow sleeps until EDGED_BENCH_START, when set: the wall-clock
// instant the script gave both subscribers to start measuring at. It
// fails when that instant passed before this side was warm (its window
// would be shorter than the reference's).
func waitForWindow(b *testing.B) {
	v := os.Getenv("EDGED_BENCH_START")
	if v == "" {
		return
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil {
		b.Fatalf("EDGED_BENCH_START=%q: want Unix seconds: %v", v, err)
	}
	start := time.Unix(0, int64(secs*1e9))
	late := time.Since(start)
	if late > 0 {
		b.Fatalf("edged was warm %v after the window's start (EDGED_BENCH_START): give the subscribers more time to warm up", late)
	}
	time.Sleep(-late)
}

// ctxSwitches counts the context switches of every thread of this
// process (getrusage sums them, exited threads included): voluntary
// ones are a thread going to sleep (on a futex, in epoll) that something
// had to wake up again, so they count wake-ups; involuntary ones are
// preemptions.
type ctxSwitches struct{ voluntary, involuntary int64 }

func switches() ctxSwitches {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ctxSwitches{voluntary: ru.Nvcsw, involuntary: ru.Nivcsw}
}

func (c ctxSwitches) sub(o ctxSwitches) ctxSwitches {
	return ctxSwitches{c.voluntary - o.voluntary, c.involuntary - o.involuntary}
}

// report adds the switches per message to the benchmark's line.
func (c ctxSwitches) report(b *testing.B, msgs int) {
	n := float64(max(msgs, 1))
	b.ReportMetric(float64(c.voluntary+c.involuntary)/n, "ctxsw/msg")
	b.ReportMetric(float64(c.voluntary)/n, "wakeups/msg")
}

// liveCounter counts header.seq gaps of one subscription while measuring
// (the first field of both Image and JointState); its handle is the
// subscription's Handler.
type liveCounter struct {
	mu        sync.Mutex
	seen      bool
	measuring bool
	gaps      uint64
	lastSeq   int64
	last      time.Time     // the last message's arrival
	maxIdle   time.Duration // the longest wait between two messages while measuring
}

func (c *liveCounter) measure(on bool) {
	c.mu.Lock()
	c.measuring = on
	c.mu.Unlock()
}

func (c *liveCounter) handle(m *Message) {
	c.mu.Lock()
	if len(m.Data) >= 4 {
		seq := int64(binary.LittleEndian.Uint32(m.Data))
		if c.measuring && c.seen && seq > c.lastSeq+1 {
			c.gaps += uint64(seq - c.lastSeq - 1)
		}
		c.lastSeq = seq
	}
	if c.measuring && c.seen {
		c.maxIdle = max(c.maxIdle, m.Received.Sub(c.last))
	}
	c.last = m.Received
	c.seen = true
	c.mu.Unlock()
	m.Release()
}

func allSeen(cs []liveCounter) bool {
	for i := range cs {
		cs[i].mu.Lock()
		seen := cs[i].seen
		cs[i].mu.Unlock()
		if !seen {
			return false
		}
	}
	return true
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
