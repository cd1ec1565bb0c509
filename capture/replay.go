package capture

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/edged-robotics/edged/ros"
)

// ErrUnknownTopic is returned by Replay.Handle for a topic the Config
// does not capture (filter the recording with Replay.Topics).
var ErrUnknownTopic = errors.New("topic not captured")

// Replay runs capture's per-message conversion on recorded messages (a
// bag), synchronously and deterministically: no subscriptions, no
// goroutines, no queues. Each Handle converts one message exactly as a
// live Capture under sim time does when `rosbag play --clock` plays the
// same recording: the same stamp rules, counters, typed and dynamic
// decoding, and the same events to the sinks, with the message's
// record time as the capture clock (what /clock would say) and its
// receive time.
//
// Handle is for one goroutine (the replay loop); Now, Stats and Topics
// may be called from any goroutine. Config.SimTime, ClockTopic and the
// queue bounds do not apply (the clock is always the record time; there
// is no subscription); the message caps (MaxMessageBytes,
// MaxStateMessageBytes) do: a larger message is dropped and counted in
// OversizeDrops, as live capture would never have received it.
//
//	for it.Next() {
//		m := it.Message()
//		err := rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time)
//		...
//	}
type Replay struct {
	pipeline
	topics map[string]*topic
	order  []*topic // cameras, joints, fsm, as configured
	msg    ros.Message
}

// NewReplay checks cfg (Validate) and the sinks, as New does.
func NewReplay(cfg Config, sinks Sinks, opts Options) (*Replay, error) {
	if err := checkSetup(cfg, sinks); err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &Replay{pipeline: pipeline{cfg: cfg.withDefaults(), sinks: sinks, now: opts.Now, borrowed: true,
		ros2Types: opts.ROS2Types},
		topics: map[string]*topic{}}
	r.sim.Store(true)
	r.order = cfg.topics()
	for _, t := range r.order {
		r.topics[t.name] = t
	}
	return r, nil
}

// Handle converts one recorded message of topic, published by pub (the
// recording's connection: type, md5sum and definition; use one pointer
// per connection, as dynamic decoding caches per publisher), received at
// recv (the record time). It returns once the sink has the event.
//
// Handle copies nothing. A Frame's Data aliases data and is valid only
// until the sink's PutFrame returns: the sink must copy what it keeps
// before returning (ringbuf.Put does), and Frame.Release is a no-op.
// The caller may reuse data as soon as Handle returns. Joint samples and
// state events own their memory, as in the live path.
//
// A malformed message, or a type the topic's role cannot use, is counted
// in Stats as the live path counts it, and is not an error. Errors are
// for a topic the Config does not capture (ErrUnknownTopic) and a zero
// recv.
func (r *Replay) Handle(topic string, pub *ros.PublisherInfo, data []byte, recv time.Time) error {
	t := r.topics[topic]
	if t == nil {
		return fmt.Errorf("capture replay: %s: %w", topic, ErrUnknownTopic)
	}
	if recv.IsZero() {
		return fmt.Errorf("capture replay: %s: message without a receive time", topic)
	}
	r.clock.set(recv, time.Time{})
	t.replayBytes.Add(uint64(len(data)))
	r.msg = ros.Message{Topic: topic, Publisher: pub, Data: data}
	r.receive(t, &r.msg)
	return nil
}

// Now returns the latest record time handled (ok false before the first
// message): the capture clock of the replay.
func (r *Replay) Now() (now time.Time, ok bool) { return r.clock.now() }

// Topics returns every topic the Config captures, cameras first.
func (r *Replay) Topics() []string {
	out := make([]string, len(r.order))
	for i, t := range r.order {
		out[i] = t.name
	}
	return out
}

// Stats returns a snapshot of every topic's counters, cameras first, as
// Capture.Stats does. Bytes counts the data handled; the subscription
// counters (drops, reconnects, publishers) stay zero.
func (r *Replay) Stats() []TopicStats {
	out := make([]TopicStats, 0, len(r.order))
	for _, t := range r.order {
		out = append(out, t.stats())
	}
	slices.SortStableFunc(out, func(a, b TopicStats) int { return int(a.Role) - int(b.Role) })
	return out
}
