package ros

import (
	"log/slog"
	"sync/atomic"

	"github.com/edged-robotics/edged/internal/loglimit"
)

// Memory: every Subscription holds at most QueueBytes (default
// 2 x MaxMessageBytes) of message bytes, whatever its publishers do:
// frames being read, queued and delivered but not yet released are
// all charged before their buffer is taken. A frame that does not
// fit drops the oldest queued message; if it still does not fit it
// is read and discarded. Besides that, per publisher connection: a
// 16 KiB read buffer, its connection header (<= MaxHeaderBytes,
// default 1 MiB) and the kernel's socket buffer (8 MiB, or up to
// tcp_rmem's maximum where that is higher: rcvbuf.go). So one
// topic costs at most QueueBytes + MaxPublishers x ~1.1 MiB of user
// memory, however many peers flood, stall or lie. The buffer pool's
// size classes add up to 25% over the bytes charged.

// Queue is a subscription's bounded delivery queue, shared by the ROS1
// node and the ROS 2 binding: at most Size messages wait in C(), and at
// most Bytes bytes are held by messages being read, queued or not yet
// released. The producer never blocks: the oldest waiting message makes
// room and is counted as a drop (logged, rate limited).
//
// Producers (a ROS1 subscription has one read loop per publisher
// connection) may call Reserve, Deliver and Drop concurrently; the
// consumer receives from C() and releases each message, which gives its
// bytes back with Unreserve. Close closes C() once no producer can
// deliver any more.
type Queue struct {
	ch       chan *Message
	maxBytes int64
	log      *slog.Logger
	prefix   string // "ros" or "dds": whose log line
	topic    string

	messages, drops atomic.Uint64
	held            atomic.Int64
	dropLog         loglimit.Limiter
}

// NewQueue makes a queue of size messages and maxBytes bytes for topic;
// drops are logged on log as "PREFIX: dropping messages".
func NewQueue(topic string, size, maxBytes int, log *slog.Logger, prefix string) *Queue {
	return &Queue{ch: make(chan *Message, size), maxBytes: int64(maxBytes), log: log, prefix: prefix, topic: topic}
}

// C delivers queued messages; it is closed by Close.
func (q *Queue) C() <-chan *Message { return q.ch }

// Close closes C(); call it once, after the last Deliver.
func (q *Queue) Close() { close(q.ch) }

// Reserve charges n bytes to the budget, dropping the oldest queued
// messages to make room. It reports false when even an empty queue
// leaves no room (the budget is held by messages being read or by
// messages the consumer has not released yet); the caller then drops
// what it was reading with Drop.
func (q *Queue) Reserve(n int) bool {
	for {
		held := q.held.Load()
		if held+int64(n) <= q.maxBytes {
			if q.held.CompareAndSwap(held, held+int64(n)) {
				return true
			}
			continue
		}
		select {
		case old := <-q.ch:
			old.Release()
			q.Drop("byte budget")
		default:
			return false
		}
	}
}

// Unreserve gives n bytes back to the budget.
func (q *Queue) Unreserve(n int) { q.held.Add(-int64(n)) }

// Deliver queues m without ever blocking: when the queue is full the
// oldest waiting message is dropped, released and counted. m is counted
// as received before it is queued, so a consumer that has received it
// never sees a count that lacks it.
func (q *Queue) Deliver(m *Message) {
	q.messages.Add(1)
	for {
		select {
		case q.ch <- m:
			return
		default:
		}
		select {
		case old := <-q.ch:
			old.Release()
			q.Drop("queue size")
		default:
		}
	}
}

// Handed counts a message handed to the consumer directly
// (SubscribeOptions.Handler) rather than queued.
func (q *Queue) Handed() { q.messages.Add(1) }

// Drop counts one dropped message and logs it, rate limited.
func (q *Queue) Drop(why string) {
	drops := q.drops.Add(1)
	if ok, more := q.dropLog.Allow(); ok {
		q.log.Warn(q.prefix+": dropping messages: the consumer is too slow or the publishers send more than the queue holds",
			"topic", q.topic, "why", why, "drops", drops, "queue_size", cap(q.ch),
			"queue_bytes", q.maxBytes, "held_bytes", q.held.Load(), "suppressed_logs", more)
	}
}

// Messages counts the messages delivered (queued, whether or not they
// were dropped later, or Handed).
func (q *Queue) Messages() uint64 { return q.messages.Load() }

// Drops counts the messages dropped for the queue's size or byte budget.
func (q *Queue) Drops() uint64 { return q.drops.Load() }

// Held is the number of bytes reserved and not yet given back.
func (q *Queue) Held() int64 { return q.held.Load() }
