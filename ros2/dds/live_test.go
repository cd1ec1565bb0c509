//go:build cgo && !purego

package dds_test

import (
	"context"
	"encoding/binary"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

func participant(t *testing.T, domain int) *dds.Participant {
	t.Helper()
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: dds.LoopbackConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func subscribe(t *testing.T, p *dds.Participant, opts dds.SubscribeOptions) *dds.Subscription {
	t.Helper()
	s, err := p.Subscribe(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// next returns the next message, failing after 20s.
func next(t *testing.T, s *dds.Subscription) *ros.Message {
	t.Helper()
	select {
	case m, ok := <-s.Messages():
		if !ok {
			t.Fatal("subscription closed")
		}
		return m
	case <-time.After(20 * time.Second):
		t.Fatalf("no message on %s; stats %+v", s.Topic(), s.Stats())
	}
	return nil
}

// cdrString reads a std_msgs/String sample (CDR_LE header, length, NUL).
func cdrString(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) < 9 || b[0] != 0 || b[1] != 1 {
		t.Fatalf("not an XCDR1 little-endian sample: % x", b[:min(len(b), 8)])
	}
	n := binary.LittleEndian.Uint32(b[4:])
	if n == 0 || int(n) > len(b)-8 {
		t.Fatalf("bad string length %d in %d bytes", n, len(b))
	}
	return string(b[8 : 8+n-1])
}

func TestLiveBestEffortCamera(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	p := participant(t, domain)
	// The queue holds all 40 frames: a test goroutine starved on a loaded
	// machine must not make edged drop (counted) the frames "most" needs.
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/camera/image/compressed", QueueSize: 64})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/camera/image/compressed", "-k", "image", "-b", "-w",
		"-n", "40", "-p", "10", "-s", "200000", "-D", "5")
	pub.WaitLine(t, "ready")
	m := next(t, s)
	if m.Publisher.Type != "sensor_msgs/msg/CompressedImage" || m.Data[1] != 1 {
		t.Errorf("type %q header % x", m.Publisher.Type, m.Data[:4])
	}
	// header (stamp 8, frame_id "camera" 4+7, pad to 4), format "jpeg" (4+5, pad), data length, data
	if len(m.Data) < 200000 {
		t.Errorf("sample of %d bytes, want > 200000", len(m.Data))
	}
	m.Release()
	if q, _ := s.QoS(); q.Reliability != dds.BestEffort {
		t.Errorf("QoS %v: want best effort, as the camera publishes", q)
	}
	got := 1
	drain := func() {
		for {
			select {
			case m := <-s.Messages():
				m.Release()
				got++
			default:
				return
			}
		}
	}
	poll.Until(t, 10*time.Second, "most frames", func() bool { drain(); return got >= 30 })
	// Once every frame received is released none is held. (Checking
	// right after the 30th raced with the publisher's last ten: a frame
	// queued is held until it is taken.)
	pub.WaitLine(t, "done")
	poll.Until(t, 10*time.Second, "no frame held", func() bool { drain(); return s.Stats().HeldBytes == 0 })
	if st := s.Stats(); st.Publishers != 1 {
		t.Errorf("stats %+v", st)
	}
}

// inOrder reports whether seen is a subsequence of all (in all's order,
// without repeats).
func inOrder(seen, all []string) bool {
	i := 0
	for _, v := range seen {
		for i < len(all) && all[i] != v {
			i++
		}
		if i == len(all) {
			return false
		}
		i++
	}
	return true
}

func TestLiveLatchedLateJoiner(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/robot_state", "-k", "string", "-l", "-D", "3", "-n", "3", "-v", "idle,picking,placing")
	pub.WaitLine(t, "done")
	p := participant(t, domain) // joins after the samples were written
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/robot_state", Type: "std_msgs/msg/String", QoS: dds.ProfileLatched})
	// Depth 1 keeps the latest state in the reader; an older one is seen
	// too when the reader goroutine took it before the next arrived (the
	// history comes in retransmits; a loaded machine spreads them out).
	// Either way the states come in order and end with the latest.
	history := []string{"idle", "picking", "placing"}
	for seen := []string{}; len(seen) == 0 || seen[len(seen)-1] != "placing"; {
		m := next(t, s)
		got := cdrString(t, m.Data)
		m.Release()
		seen = append(seen, got)
		if !inOrder(seen, history) {
			t.Fatalf("latched samples %q, want the writer's states in order ending with %q", seen, "placing")
		}
	}
	if q, ok := s.QoS(); !ok || q != dds.ProfileLatched {
		t.Errorf("reader QoS %+v (created %v), want %+v", q, ok, dds.ProfileLatched)
	}
	// auto QoS adopts transient-local and gets the writer's whole history
	s2 := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/robot_state"})
	for _, want := range []string{"idle", "picking", "placing"} {
		m := next(t, s2)
		if got := cdrString(t, m.Data); got != want {
			t.Errorf("auto QoS: %q, want %q", got, want)
		}
		m.Release()
	}
}

func TestLivePublisherRestart(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	p := participant(t, domain)
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/state", Type: "std_msgs/msg/String", QoS: dds.ProfileDefault})
	for i, v := range []string{"first", "second"} {
		pub := ddstest.Start(t, tools.Pub, domain, "-t", "/state", "-w", "-v", v)
		m := next(t, s)
		if got := cdrString(t, m.Data); got != v {
			t.Errorf("publisher %d: %q, want %q", i, got, v)
		}
		m.Release()
		pub.Kill() // a crash: no orderly goodbye
	}
	if st := s.Stats(); st.Connects < 2 || st.Messages != 2 {
		t.Errorf("stats %+v: want 2 publishers matched over time, 2 messages", st)
	}
}

func TestLiveGraph(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	p := participant(t, domain)
	chatter := ddstest.Start(t, tools.Pub, domain, "-t", "/chatter", "-n", "0")
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-b", "-n", "0")
	chatter.WaitLine(t, "ready")
	cam.WaitLine(t, "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pubs, err := p.WaitPublications(ctx, func(pubs []dds.Publication) bool { return len(dds.Topics(pubs)) == 2 })
	if err != nil {
		t.Fatalf("%v: %+v", err, pubs)
	}
	topics := dds.Topics(pubs)
	if topics[0].Name != "/cam/compressed" || topics[0].Types[0] != "sensor_msgs/msg/CompressedImage" ||
		topics[1].Name != "/chatter" || topics[1].Types[0] != "std_msgs/msg/String" {
		t.Errorf("topics %+v", topics)
	}
	for _, pub := range pubs {
		if pub.Topic == "/cam/compressed" && pub.QoS.Reliability != dds.BestEffort {
			t.Errorf("camera QoS %v", pub.QoS)
		}
	}
	cam.Stop()
	if _, err := p.WaitPublications(ctx, func(pubs []dds.Publication) bool { return len(dds.Topics(pubs)) == 1 }); err != nil {
		t.Errorf("the stopped publisher stays in the graph: %v", err)
	}
}

// imageSeq is the sequence number ddstest's publisher puts in the first
// 4 data bytes of a generated CompressedImage.
func imageSeq(t *testing.T, b []byte) uint32 {
	t.Helper()
	var img msg.CompressedImage
	if err := cdr.DecodeCompressedImage(b, &img); err != nil || len(img.Data) < 4 {
		t.Fatalf("decode: %v (%d data bytes)", err, len(img.Data))
	}
	return binary.LittleEndian.Uint32(img.Data)
}

// receiveUntil releases messages from s until one carries sequence last,
// failing when none arrives for 20s (a stalled stream); it returns how
// many arrived. ordered: sequences must increase (one publisher).
func receiveUntil(t *testing.T, s *dds.Subscription, last uint32, ordered bool) (got int) {
	t.Helper()
	stall := time.NewTimer(20 * time.Second)
	defer stall.Stop()
	prev := int64(-1)
	for {
		select {
		case m, ok := <-s.Messages():
			if !ok {
				t.Fatalf("subscription closed after %d messages", got)
			}
			seq := imageSeq(t, m.Data)
			m.Release()
			got++
			if ordered && int64(seq) <= prev {
				t.Fatalf("sequence %d after %d", seq, prev)
			}
			prev = int64(seq)
			if seq == last {
				return got
			}
			stall.Reset(20 * time.Second)
		case <-stall.C:
			t.Fatalf("stream stalled after %d messages (last sequence %d, waiting for %d); stats %+v", got, prev, last, s.Stats())
		}
	}
}

// A reliable camera sending 150 KB frames as fast as flow control lets
// it: every frame reaches edged (received, or dropped by edged's bounded
// queue and counted), in order, and the stream never stalls. The writer
// keeps all its history, so nothing may be lost on the way; a reader
// history that overwrote samples when the reader goroutine fell behind
// lost frames here without counting them.
func TestLiveReliableCameraEveryFrame(t *testing.T) {
	const frames = 2500
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/camera/image/compressed", QueueSize: 16})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/camera/image/compressed", "-k", "image", "-w", "-D", "0",
		"-n", strconv.Itoa(frames), "-s", "150000")
	pub.WaitLine(t, "ready")
	got := receiveUntil(t, s, frames-1, true)
	if q, _ := s.QoS(); q.Reliability != dds.Reliable {
		t.Errorf("QoS %v: want reliable, as the camera publishes", q)
	}
	st := s.Stats()
	t.Logf("%d of %d frames received, stats %+v", got, frames, st)
	if st.Messages != frames || uint64(got)+st.Drops != frames || st.Errors != 0 || st.HeldBytes != 0 {
		t.Errorf("%d frames received + %d counted drops, want %d; stats %+v", got, st.Drops, frames, st)
	}
}

// The same with ROS 2's default profile (keep last 10 at the writer, which
// may skip frames a slow reader has not acknowledged): the stream never
// stalls and the last frame arrives.
func TestLiveReliableCameraDefaultProfile(t *testing.T) {
	const frames = 2500
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/camera/image/compressed", QoS: dds.ProfileDefault})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/camera/image/compressed", "-k", "image", "-w", "-D", "10",
		"-n", strconv.Itoa(frames), "-s", "150000")
	pub.WaitLine(t, "ready")
	got := receiveUntil(t, s, frames-1, true)
	t.Logf("%d of %d frames received, stats %+v", got, frames, s.Stats())
}

// A reliable camera killed mid-stream and started again: the reader
// follows the new publisher to its last frame.
func TestLiveReliableCameraRestart(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/camera/image/compressed", QueueSize: 16})
	args := []string{"-t", "/camera/image/compressed", "-k", "image", "-w", "-D", "0", "-s", "150000"}
	first := ddstest.Start(t, tools.Pub, domain, append(args, "-n", "1000000", "-p", "1")...)
	first.WaitLine(t, "ready")
	receiveUntil(t, s, 200, true)
	first.Kill() // mid-stream, mid-sample perhaps: no goodbye
	second := ddstest.Start(t, tools.Pub, domain, append(args, "-n", "1000")...)
	second.WaitLine(t, "ready")
	receiveUntil(t, s, 999, false) // frames of the first may still be queued
	if st := s.Stats(); st.Connects < 2 || st.Errors != 0 {
		t.Errorf("stats %+v: want 2 publishers matched over time", st)
	}
}

// A reader goroutine that falls behind a reliable writer must not lose
// samples inside Cyclone: its history holds what it can and the writer
// keeps (and resends) the rest. The reader is held back while the writer
// sends 50 samples, five times the reader's history depth (and less than
// the writer keeps unacknowledged before it blocks).
func TestLiveReliableReaderBehind(t *testing.T) {
	const frames = 50
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/camera/image/compressed", QueueSize: 1000})
	resume := dds.PauseReaders()
	defer resume()
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/camera/image/compressed", "-k", "image", "-w", "-D", "0",
		"-n", strconv.Itoa(frames), "-s", "1000")
	pub.WaitLine(t, "done") // the writer's history takes what the reader's does not
	resume()
	got := receiveUntil(t, s, frames-1, true)
	if st := s.Stats(); got != frames || st.Drops != 0 {
		t.Errorf("%d of %d samples, stats %+v", got, frames, st)
	}
}

// Receiving, decoding and releasing a camera message allocates nothing in
// steady state, in Go or in C. AllocsPerRun counts every goroutine's
// allocations, so a rare one elsewhere is tolerated; one per message is
// not. In C, a large sample's buffer comes back for the next one (each
// was a fresh malloc whose pages Cyclone's receive thread faulted in:
// bufpool.c); a few more may be in flight at a peak than in warm-up.
func TestLiveCameraNoAllocs(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/cam/compressed", Type: "sensor_msgs/msg/CompressedImage",
		QoS: dds.ProfileDefault, QueueSize: 64})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-w", "-D", "0", "-p", "1",
		"-n", "100000", "-s", "150000")
	pub.WaitLine(t, "ready")
	var img msg.CompressedImage
	stall := time.NewTimer(20 * time.Second) // reset, not re-created: time.After allocates
	defer stall.Stop()
	receive := func() {
		stall.Reset(20 * time.Second)
		var m *ros.Message
		select {
		case m = <-s.Messages():
		case <-stall.C:
			t.Fatalf("stalled: %+v", s.Stats())
		}
		if err := cdr.DecodeCompressedImage(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		m.Release()
	}
	for i := 0; i < 50; i++ { // warm up the pools
		receive()
	}
	fresh0, reused0 := dds.SampleBufferStats()
	if a := testing.AllocsPerRun(300, receive); a > 0.1 {
		t.Errorf("%.2f allocations per message, want 0", a)
	}
	fresh, reused := dds.SampleBufferStats()
	if fresh-fresh0 > 4 || reused-reused0 < 290 {
		t.Errorf("301 frames took %d fresh sample buffers and reused %d: want <= 4 fresh", fresh-fresh0, reused-reused0)
	}
}

// A publisher whose participant names its writer on ros_discovery_info
// (as every ROS 2 node does) is known by its node's full name: in the
// graph (edged topics --ros2) and on every sample once the name has
// arrived. A plain DDS writer stays unnamed.
func TestLiveNodeNames(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	p := participant(t, domain)
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/chatter", Type: "std_msgs/msg/String", QueueSize: 64})
	talker := ddstest.Start(t, tools.Pub, domain, "-t", "/chatter", "-N", "/demo/talker", "-n", "100000", "-p", "2")
	plain := ddstest.Start(t, tools.Pub, domain, "-t", "/plain", "-n", "0")
	talker.WaitLine(t, "ready")
	plain.WaitLine(t, "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pubs, err := p.WaitPublications(ctx, func(pubs []dds.Publication) bool {
		topics := dds.Topics(pubs)
		return len(topics) == 2 && len(topics[0].Nodes) == 1
	})
	if err != nil {
		t.Fatalf("%v: %+v", err, pubs)
	}
	topics := dds.Topics(pubs)
	if topics[0].Name != "/chatter" || topics[0].Nodes[0] != "/demo/talker" || topics[1].Nodes != nil {
		t.Errorf("topics %+v", topics)
	}
	for _, pub := range pubs {
		if pub.Topic == "/plain" && pub.Node != "" {
			t.Errorf("a plain DDS writer is named %q", pub.Node)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		m := next(t, s)
		caller := m.Publisher.CallerID
		m.Release()
		if caller == "/demo/talker" {
			break
		}
		if caller != "" || time.Now().After(deadline) {
			t.Fatalf("sample from %q, want /demo/talker", caller)
		}
	}
}

// logBuffer collects a participant's log lines (written by its
// goroutines, read by the test).
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A reader whose QoS a publisher cannot serve (ros2.qos: default, which
// is reliable, against a best-effort camera) gets nothing from it, as in
// ROS 2; edged says why, naming the policy, as rclcpp warns. It was
// silent: the topic just never delivered.
func TestLiveIncompatibleQoSWarns(t *testing.T) {
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	logs := &logBuffer{}
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: dds.LoopbackConfig, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	s := subscribe(t, p, dds.SubscribeOptions{Topic: "/cam/compressed", Type: "sensor_msgs/msg/CompressedImage", QoS: dds.ProfileDefault})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-b", "-n", "100000", "-p", "10")
	pub.WaitLine(t, "ready")
	poll.Until(t, 30*time.Second, "a warning about the incompatible publisher", func() bool {
		l := logs.String()
		return strings.Contains(l, "incompatible") && strings.Contains(l, "policy=reliability")
	})
	if st := s.Stats(); st.Messages != 0 {
		t.Errorf("stats %+v: a reliable reader received from a best-effort writer", st)
	}
	if n := strings.Count(logs.String(), "incompatible"); n != 1 {
		t.Errorf("%d warnings for one publisher, want 1:\n%s", n, logs.String())
	}
}

// With a Handler every sample of a reliable camera is handed on the
// participant's pump, one call at a time, in order, none on
// Messages(), each counted as a message; the byte budget counts what the
// handler holds until it releases it.
func TestLiveHandler(t *testing.T) {
	const frames = 300
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	var (
		mu      sync.Mutex
		seqs    []uint32
		held    []*ros.Message
		calls   = make(chan struct{}, frames)
		inCall  atomic.Bool
		overlap atomic.Bool
	)
	handler := func(m *ros.Message) {
		if inCall.Swap(true) {
			overlap.Store(true)
		}
		defer inCall.Store(false)
		mu.Lock()
		seqs = append(seqs, imageSeq(t, m.Data))
		held = append(held, m)
		if len(held) >= 4 { // hold a few unreleased, as a slow consumer would
			for _, h := range held {
				h.Release()
			}
			held = held[:0]
		}
		mu.Unlock()
		calls <- struct{}{}
	}
	s := subscribe(t, participant(t, domain), dds.SubscribeOptions{Topic: "/camera/image/compressed", Handler: handler})
	pub := ddstest.Start(t, tools.Pub, domain, "-t", "/camera/image/compressed", "-k", "image", "-w", "-D", "0",
		"-n", strconv.Itoa(frames), "-s", "150000")
	pub.WaitLine(t, "ready")
	for got := 0; got < frames; got++ {
		select {
		case <-calls:
		case <-time.After(20 * time.Second):
			t.Fatalf("handler called %d times of %d; stats %+v", got, frames, s.Stats())
		}
	}
	select {
	case m := <-s.Messages():
		t.Fatalf("a message on Messages() beside the Handler: %d bytes", len(m.Data))
	default:
	}
	mu.Lock()
	for i, seq := range seqs {
		if seq != uint32(i) {
			t.Fatalf("sample %d has sequence %d: want every sample, in order", i, seq)
		}
	}
	for _, h := range held {
		h.Release()
	}
	held = nil
	mu.Unlock()
	if st := s.Stats(); st.Messages != frames || st.Drops != 0 || st.HeldBytes != 0 {
		t.Errorf("stats %+v: want %d messages, no drops, nothing held", st, frames)
	}
	if overlap.Load() {
		t.Error("the handler ran twice at once")
	}
}
