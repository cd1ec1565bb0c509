// Command ingest is edged's side of the ROS 2 ingest benchmark
// (scripts/bench-ros2.sh): it receives bench/ros2/pub.c's topics as
// capture does, through package ros2/dds readers with capture's queue
// bounds and a Handler on the participant's pump (capture's Handle),
// decoding every sample (cdr.DecodeImage, cdr.DecodeJointState) and
// releasing it. It warms up until every topic delivered, then receives
// for SECONDS, from $BENCH_START (Unix seconds) when set: the wall-clock
// window bench/ros2/sub.c measures too, so that bench/ingestcmp can hold
// both to the same work. It prints one line, as bench/ros2/sub.c does:
//
//	edged messages=N bytes=B cpu_s=C drops=D seq_gaps=G ctxsw=S wakeups=W
//
// bytes are the serialized samples' sizes, cpu_s this process's
// utime+stime from /proc/self/stat over the window, drops the
// subscriptions' Stats().Drops (edged's queues plus what Cyclone reports
// lost), seq_gaps the sequence numbers never seen, ctxsw the process's
// context switches and wakeups the voluntary ones (getrusage).
//
// Usage: [BENCH_START=UNIX_SECONDS] ingest SECONDS DOMAIN [cameras=3]
//
// ingest loopback-config prints dds.LoopbackConfig, the CYCLONEDDS_URI
// the script gives the C programs so that every process agrees.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
)

// counters of one topic, written by the participant's pump (the
// Handler), read by main.
type counters struct {
	messages, bytes, gaps, errors atomic.Uint64
	seen                          atomic.Bool
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ingest:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 1 && args[0] == "loopback-config" {
		fmt.Println(dds.LoopbackConfig)
		return nil
	}
	if len(args) < 2 {
		return errors.New("usage: ingest SECONDS DOMAIN [cameras]")
	}
	seconds, err1 := strconv.ParseFloat(args[0], 64)
	domain, err2 := strconv.Atoi(args[1])
	cams := 3
	var err3 error
	if len(args) > 2 {
		cams, err3 = strconv.Atoi(args[2])
	}
	if err := errors.Join(err1, err2, err3); err != nil || cams < 0 || cams > 16 {
		return fmt.Errorf("bad arguments %q: want SECONDS DOMAIN [cameras 0..16]: %v", args, err)
	}
	// The script gives every process one CYCLONEDDS_URI: edged's side
	// must read it too (an explicit CycloneConfig would override it, and
	// the two subscribers would then differ in socket buffers and
	// fragment sizes, which decide how many packets the kernel drops).
	conf := dds.LoopbackConfig
	if os.Getenv("CYCLONEDDS_URI") != "" {
		conf = ""
	}
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: conf})
	if err != nil {
		return err
	}
	defer p.Close()

	ctx := context.Background()
	var subs []*dds.Subscription
	var counts []*counters
	for i := 0; i <= cams; i++ {
		c := new(counters)
		// capture's bounds: a camera gets the default queue, a state
		// topic capture's state queue; each sample is handed to the
		// counter on the participant's pump, as capture's Handle is
		opts := dds.SubscribeOptions{Topic: fmt.Sprintf("/bench/cam%d/image_raw", i), Type: "sensor_msgs/msg/Image",
			QueueBytes: capture.DefaultQueueBytes, Handler: c.imageHandler()}
		if i == cams {
			opts = dds.SubscribeOptions{Topic: "/bench/joint_states", Type: "sensor_msgs/msg/JointState",
				QueueSize: capture.DefaultStateQueueSize, MaxMessageBytes: capture.DefaultMaxStateMessageBytes,
				QueueBytes: capture.DefaultStateQueueBytes, Handler: c.jointsHandler()}
		}
		s, err := p.Subscribe(ctx, opts)
		if err != nil {
			return err
		}
		defer s.Close()
		subs, counts = append(subs, s), append(counts, c)
	}

	// warm up: poll with a deadline until every topic delivered
	for deadline := time.Now().Add(30 * time.Second); !allSeen(counts); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("not every topic delivered within 30 s (is the publisher running on this domain?)")
		}
	}
	if err := waitForWindow(os.Getenv("BENCH_START")); err != nil {
		return err
	}
	m0, b0, g0, d0 := totals(subs, counts)
	vol0, inv0 := switches()
	cpu0, err := cpuSeconds()
	if err != nil {
		return err
	}
	time.Sleep(time.Duration(seconds * float64(time.Second))) // the measuring window, not a synchronization
	cpu1, err := cpuSeconds()
	vol1, inv1 := switches()
	if err != nil {
		return err
	}
	m1, b1, g1, d1 := totals(subs, counts)
	for i, c := range counts {
		st := subs[i].Stats()
		fmt.Fprintf(os.Stderr, "%s: messages=%d drops=%d seq_gaps=%d\n", subs[i].Topic(), c.messages.Load(), st.Drops, c.gaps.Load())
		if e := c.errors.Load(); e > 0 {
			return fmt.Errorf("%s: %d samples did not decode", subs[i].Topic(), e)
		}
	}
	fmt.Printf("edged messages=%d bytes=%d cpu_s=%.3f drops=%d seq_gaps=%d ctxsw=%d wakeups=%d\n", m1-m0, b1-b0, cpu1-cpu0, d1-d0, g1-g0,
		(vol1-vol0)+(inv1-inv0), vol1-vol0)
	return nil
}

// imageHandler decodes a sensor_msgs/Image sample (its data starts with
// the publisher's sequence number), releases it and counts it.
func (c *counters) imageHandler() func(*ros.Message) {
	var img msg.Image
	return c.handler(func(data []byte) (int64, error) {
		if err := cdr.DecodeImage(data, &img); err != nil || len(img.Data) < 4 {
			return 0, err
		}
		return int64(binary.LittleEndian.Uint32(img.Data)), nil
	})
}

// jointsHandler does the same for sensor_msgs/JointState (the sequence
// number is position[0]).
func (c *counters) jointsHandler() func(*ros.Message) {
	var js msg.JointState
	return c.handler(func(data []byte) (int64, error) {
		if err := cdr.DecodeJointState(data, &js); err != nil || len(js.Position) == 0 {
			return 0, err
		}
		return int64(js.Position[0]), nil
	})
}

// handler decodes (seq), releases and counts each message, on the
// participant's pump (calls are sequential).
func (c *counters) handler(seq func([]byte) (int64, error)) func(*ros.Message) {
	last := int64(-1)
	return func(m *ros.Message) {
		n := len(m.Data)
		s, err := seq(m.Data)
		m.Release()
		if err != nil {
			c.errors.Add(1)
			return
		}
		if last >= 0 && s > last+1 {
			c.gaps.Add(uint64(s - last - 1))
		}
		last = s
		c.messages.Add(1)
		c.bytes.Add(uint64(n))
		c.seen.Store(true)
	}
}

// waitForWindow sleeps until start (Unix seconds), when set: the
// instant the script gave both subscribers to start measuring at. It
// fails when that instant passed before this side was warm (its window
// would not be the reference's).
func waitForWindow(start string) error {
	if start == "" {
		return nil
	}
	secs, err := strconv.ParseFloat(start, 64)
	if err != nil {
		return fmt.Errorf("BENCH_START=%q: want Unix seconds: %w", start, err)
	}
	late := time.Since(time.Unix(0, int64(secs*1e9)))
	if late > 0 {
		return fmt.Errorf("warm %v after the window's start (BENCH_START): give the subscribers more time to warm up (WARMUP)", late)
	}
	time.Sleep(-late) // until the window opens, not a synchronization
	return nil
}

func allSeen(counts []*counters) bool {
	for _, c := range counts {
		if !c.seen.Load() {
			return false
		}
	}
	return true
}

func totals(subs []*dds.Subscription, counts []*counters) (messages, bytes, gaps, drops uint64) {
	for i, c := range counts {
		messages += c.messages.Load()
		bytes += c.bytes.Load()
		gaps += c.gaps.Load()
		drops += subs[i].Stats().Drops
	}
	return
}

// switches counts the context switches of every thread of this process
// (getrusage): voluntary ones are a thread that slept and was woken (the
// wake-ups), involuntary ones preemptions.
func switches() (voluntary, involuntary int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw, ru.Nivcsw
}

// cpuSeconds is this process's utime+stime from /proc/self/stat (clock
// ticks of USER_HZ, 100 on Linux).
func cpuSeconds() (float64, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/stat: no ')' in %q", s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/self/stat: %d fields after the command", len(f))
	}
	// f[0] is field 3 (state): utime is field 14, stime 15
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/self/stat: %w", err)
	}
	return float64(ut+st) / 100, nil
}
