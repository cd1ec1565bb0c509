package sink

import (
	"context"
	"errors"
	"hash/crc32"
	"strings"
	"sync"
	"sync/atomic"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// Lanes. paho delivers a session's messages one at a time, in order; a
// sink that handled them there would wait for every write of the store
// in turn (a directory's fsyncs, an object store's round trips) and use
// a fraction of its core. So paho's handler only queues each message on
// the lane of its robot, and each lane handles and acknowledges its own
// messages in order: one robot's messages never overlap (the receiver
// sees them as the robot sent them), different robots' do.

const (
	// maxLanes caps Config.Lanes.
	maxLanes = 256
	// laneQueue bounds the messages waiting in one lane: when it is full
	// paho's handler waits, paho stops reading, and the broker keeps the
	// rest (within its in-flight window).
	laneQueue = 16
	// laneMessages bounds the payload bytes the lanes hold at once
	// (queued or being handled), in units of the largest message the
	// sink decodes: the queues alone would hold laneQueue of them a lane
	// (16 x 64 MiB a lane at the default MaxMessage). One message always
	// gets in, however large.
	laneMessages = 2
)

// laneOf is the lane of a message on topic PREFIX/ROBOT/KIND: its robot's.
func (s *Sink) laneOf(topic string) int {
	robot := strings.TrimPrefix(topic, s.cfg.Prefix+"/")
	if i := strings.IndexByte(robot, '/'); i >= 0 {
		robot = robot[:i]
	}
	return int(crc32.ChecksumIEEE([]byte(robot)) % uint32(len(s.lanes)))
}

// lanes are one session's lane goroutines; stop ends them.
type lanes struct {
	s         *Sink
	ctx       context.Context
	cancel    context.CancelFunc
	queues    []chan mqtt.Message
	redeliver chan<- error
	wg        sync.WaitGroup

	maxBytes int64 // payload bytes held at once (laneMessages)
	mu       sync.Mutex
	held     int64         // payload bytes queued or being handled
	room     chan struct{} // closed (and replaced) when bytes are given back
	waits    atomic.Uint64 // dispatches that waited for room
}

// startLanes starts a session's lanes; a message that must be
// redelivered is reported on redeliver (never blocking).
func (s *Sink) startLanes(ctx context.Context, redeliver chan<- error) *lanes {
	ctx, cancel := context.WithCancel(ctx)
	l := &lanes{s: s, ctx: ctx, cancel: cancel, queues: make([]chan mqtt.Message, len(s.lanes)), redeliver: redeliver,
		maxBytes: laneMessages * (int64(s.cfg.MaxMessage) + 64<<10), room: make(chan struct{})}
	for i := range l.queues {
		l.queues[i] = make(chan mqtt.Message, laneQueue)
		l.wg.Add(1)
		go l.run(l.queues[i])
	}
	return l
}

// dispatch is paho's message handler: it queues m on its robot's lane
// once the lanes have room for its bytes. A message still queued when
// the session ends is never acknowledged, so the broker redelivers it.
func (l *lanes) dispatch(_ mqtt.Client, m mqtt.Message) {
	n := int64(len(m.Payload()))
	if !l.reserve(n) {
		return
	}
	select {
	case l.queues[l.s.laneOf(m.Topic())] <- m:
	case <-l.ctx.Done():
		l.release(n)
	}
}

// reserve waits until the lanes hold room for n more bytes (or hold
// nothing); false when the session ends first.
func (l *lanes) reserve(n int64) bool {
	for waited := false; ; waited = true {
		l.mu.Lock()
		if l.held == 0 || l.held+n <= l.maxBytes {
			l.held += n
			l.mu.Unlock()
			return true
		}
		room := l.room
		l.mu.Unlock()
		if !waited {
			l.waits.Add(1)
		}
		select {
		case <-room:
		case <-l.ctx.Done():
			return false
		}
	}
}

// release gives n bytes back and wakes the dispatches waiting for room.
func (l *lanes) release(n int64) {
	l.mu.Lock()
	l.held -= n
	close(l.room)
	l.room = make(chan struct{})
	l.mu.Unlock()
}

func (l *lanes) run(q <-chan mqtt.Message) {
	defer l.wg.Done()
	for {
		select {
		case <-l.ctx.Done():
			return
		case m := <-q:
			l.take(m)
			l.release(int64(len(m.Payload())))
		}
	}
}

// take handles m and acknowledges it, unless the sink could not take it
// now: then the session ends, and the broker redelivers it.
func (l *lanes) take(m mqtt.Message) {
	err := l.s.Handle(m.Topic(), m.Payload())
	if errors.Is(err, ErrRetry) {
		select {
		case l.redeliver <- err:
		default:
		}
		return // no acknowledgement: the broker keeps it
	}
	if err != nil {
		l.s.log.Warn("sink: message rejected", "topic", m.Topic(), "err", err)
	}
	m.Ack() // only now: its files and its id are durable
}

// stop ends the lanes and waits for the messages being handled.
func (l *lanes) stop() {
	l.cancel()
	l.wg.Wait()
}
