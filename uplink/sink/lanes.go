package sink

import (
	"context"
	"errors"
	"hash/crc32"
	"strings"
	"sync"

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
}

// startLanes starts a session's lanes; a message that must be
// redelivered is reported on redeliver (never blocking).
func (s *Sink) startLanes(ctx context.Context, redeliver chan<- error) *lanes {
	ctx, cancel := context.WithCancel(ctx)
	l := &lanes{s: s, ctx: ctx, cancel: cancel, queues: make([]chan mqtt.Message, len(s.lanes)), redeliver: redeliver}
	for i := range l.queues {
		l.queues[i] = make(chan mqtt.Message, laneQueue)
		l.wg.Add(1)
		go l.run(l.queues[i])
	}
	return l
}

// dispatch is paho's message handler: it queues m on its robot's lane.
// A message still queued when the session ends is never acknowledged,
// so the broker redelivers it.
func (l *lanes) dispatch(_ mqtt.Client, m mqtt.Message) {
	select {
	case l.queues[l.s.laneOf(m.Topic())] <- m:
	case <-l.ctx.Done():
	}
}

func (l *lanes) run(q <-chan mqtt.Message) {
	defer l.wg.Done()
	for {
		select {
		case <-l.ctx.Done():
			return
		case m := <-q:
			l.take(m)
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
