//go:build cgo && !purego

package dds

import (
	"github.com/edged-robotics/edged/ros"
)

// reserve charges n bytes to the subscription's budget (queued and
// unreleased samples), dropping the oldest queued messages to make room.
// It reports false when even an empty queue leaves no room.
func (s *Subscription) reserve(n int) bool {
	for {
		held := s.held.Load()
		if held+int64(n) <= int64(s.opts.QueueBytes) {
			if s.held.CompareAndSwap(held, held+int64(n)) {
				return true
			}
			continue
		}
		select {
		case old := <-s.queue:
			old.Release()
			s.dropped("byte budget")
		default:
			return false
		}
	}
}

// deliver queues m without ever blocking: when the queue is full the
// oldest waiting message is dropped, released and counted.
func (s *Subscription) deliver(m *ros.Message) {
	for {
		select {
		case s.queue <- m:
			s.messages.Add(1)
			return
		default:
		}
		select {
		case old := <-s.queue:
			old.Release()
			s.dropped("queue size")
		default:
		}
	}
}

// dropped counts one dropped message and logs it, rate limited.
func (s *Subscription) dropped(why string) {
	drops := s.drops.Add(1)
	if ok, more := s.dropLog.Allow(); ok {
		s.p.log.Warn("dds: dropping messages: the consumer is too slow or the publishers send more than the queue holds",
			"topic", s.opts.Topic, "why", why, "drops", drops, "queue_size", s.opts.QueueSize,
			"queue_bytes", s.opts.QueueBytes, "held_bytes", s.held.Load(), "suppressed_logs", more)
	}
}
