package sink

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink/wire"
)

// TestLanesOverlapRobots: while a write of one robot's message waits
// (a slow store), the sink handles another robot's message; each robot's
// messages are still delivered one at a time, in the order sent. Before
// lanes the sink handled every message in turn, so the second robot
// waited behind the first.
func TestLanesOverlapRobots(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	var mu sync.Mutex
	var order []string
	otherDone := make(chan struct{})
	var once sync.Once
	s, err := New(Config{Broker: b.URL, Out: t.TempDir(), ClientID: "sink-lanes", Lanes: 4,
		OnDeliver: func(e *wire.Envelope) {
			mu.Lock()
			order = append(order, fmt.Sprint(e.Robot, "/", e.Seq))
			mu.Unlock()
			if e.Robot != "arm-01" {
				once.Do(func() { close(otherDone) })
			}
		}}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	other := ""
	for i := 2; other == "" && i < 100; i++ {
		if r := fmt.Sprintf("arm-%02d", i); s.laneOf("edged/"+r+"/segment") != s.laneOf(topicSeg) {
			other = r
		}
	}
	if other == "" {
		t.Fatal("no robot name found on another lane than arm-01's")
	}
	var waited bool
	s.writeFn = func(path string, body []byte) error {
		if strings.Contains(path, testEp) && !waited {
			waited = true // only this lane writes arm-01's files
			select {
			case <-otherDone:
			case <-time.After(30 * time.Second): // a deadline for the failure, not a sync point
			}
		}
		return writeFile(path, body)
	}
	runSink(t, s)

	var mine [][]byte
	for i := range 3 {
		mine = append(mine, enc(t, segEnv(t, int64(i))))
	}
	publishRaw(t, b.URL, "robot-1", topicSeg, mine...)
	seg, _ := (&wire.Segment{Index: 0, Label: "PICK", Source: "/s", Kind: "string", Outcome: "completed"}).MarshalMsg(nil)
	theirs := wire.New(wire.NewID(), other, other+"-20231114T221320.000Z", wire.KindSegment, 0, 1, seg)
	publishRaw(t, b.URL, "robot-2", "edged/"+other+"/segment", enc(t, theirs))
	poll.Until(t, 60*time.Second, "all four delivered", func() bool { return s.Stats().Delivered == 4 })

	want := []string{other + "/0", "arm-01/0", "arm-01/1", "arm-01/2"}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("delivered %v, want %v: the other robot's message while arm-01's write waits, arm-01's in order", order, want)
	}
}

// laneMsg is an MQTT message handed to the lanes directly; Ack counts.
type laneMsg struct {
	mqtt.Message
	topic   string
	payload []byte
	acked   *atomic.Int32
}

func (m *laneMsg) Topic() string   { return m.topic }
func (m *laneMsg) Payload() []byte { return m.payload }
func (m *laneMsg) Ack()            { m.acked.Add(1) }

// TestLanesBoundQueuedBytes: while a robot's lane waits for a slow
// store, the large messages paho hands the sink wait for room instead
// of piling up in the lane (its queue bounded only their count: 16 of
// the largest message a lane, 8 GiB over 8 lanes at the default
// MaxMessage, where handling in paho's goroutine held one); once the
// store is back every message is handled and acknowledged.
func TestLanesBoundQueuedBytes(t *testing.T) {
	s, err := New(Config{Out: t.TempDir(), MaxMessage: 1 << 20, Lanes: 2}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	gate, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.writeFn = func(path string, body []byte) error {
		once.Do(func() { close(entered) })
		<-gate
		return writeFile(path, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := s.startLanes(ctx, make(chan error, 1))
	var gateOnce sync.Once
	open := func() { gateOnce.Do(func() { close(gate) }) }
	t.Cleanup(func() { open(); cancel(); l.stop() })

	var acked atomic.Int32
	l.dispatch(nil, &laneMsg{topic: topicSeg, payload: enc(t, segEnv(t, 0)), acked: &acked})
	select {
	case <-entered:
	case <-time.After(30 * time.Second): // a deadline for the failure, not a sync point
		t.Fatal("the first message never reached the store")
	}
	const n, size = 12, 1 << 20
	var sent atomic.Int64
	allSent := make(chan struct{})
	go func() {
		defer close(allSent)
		for range n {
			l.dispatch(nil, &laneMsg{topic: topicSeg, payload: make([]byte, size), acked: &acked})
			sent.Add(1)
		}
	}()
	poll.Until(t, 30*time.Second, "the dispatcher sent all or waits for room", func() bool {
		select {
		case <-allSent:
			return true
		default:
			return l.waits.Load() > 0
		}
	})
	if held := sent.Load() * size; held > l.maxBytes {
		t.Errorf("the lanes took %d bytes of messages while the store waited, want at most %d", held, l.maxBytes)
	}
	open()
	poll.Until(t, 60*time.Second, "every message acknowledged", func() bool { return acked.Load() == n+1 })
	<-allSent
}
