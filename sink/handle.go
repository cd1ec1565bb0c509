package sink

import (
	"errors"
	"fmt"

	"github.com/edged-robotics/edged/uplink/wire"
)

// Hostile publishers: the topic's robot must be the envelope's (the
// broker's ACL vouches for the topic, see docs/deploy.md); nothing once
// held is replaced by a different content (a file, a segment index, an
// end manifest; counted in Stats.Conflicts); chunks are grouped by all
// their shared fields, so a forged chunk cannot poison a real message,
// and incomplete messages are capped per robot as well as in all.

// ErrRetry marks a message the sink could not take now (a write failed,
// a cap on incomplete messages is reached): it is not acknowledged, and
// Run reconnects so the broker redelivers it.
var ErrRetry = errors.New("sink: not acknowledged, the broker redelivers it")

func retry(err error) error { return fmt.Errorf("%w: %w", ErrRetry, err) }

// Handle processes one MQTT message. nil: acknowledge it. An error
// wrapping ErrRetry: do not acknowledge, the broker must redeliver it.
// Any other error: it was rejected for good (counted); acknowledge it.
func (s *Sink) Handle(topic string, payload []byte) error {
	s.received.Add(1)
	lane := &s.lanes[s.laneOf(topic)]
	lane.Lock()
	defer lane.Unlock()
	err := s.handle(topic, payload)
	switch {
	case errors.Is(err, ErrRetry):
		s.retried.Add(1)
	case errors.Is(err, errConflict):
		s.conflicts.Add(1)
		s.rejected.Add(1)
	case err != nil:
		s.rejected.Add(1)
	}
	return err
}

func (s *Sink) handle(topic string, payload []byte) error {
	s.expire()
	env, err := wire.Decode(payload, s.cfg.MaxMessage+64<<10)
	if err != nil {
		return err
	}
	// The topic is what the broker's ACL vouches for: the envelope's
	// robot and kind must be the topic's.
	if want := s.cfg.Prefix + "/" + env.Robot + "/" + env.Kind; topic != want {
		return fmt.Errorf("sink: envelope for %s arrived on %s", want, topic)
	}
	if int(env.Size) > s.cfg.MaxMessage || int(env.Chunks) > s.cfg.MaxChunks {
		return fmt.Errorf("sink: message of %d bytes in %d chunks exceeds the caps", env.Size, env.Chunks)
	}
	if env.Kind == wire.KindStatus {
		return s.writeStatus(env)
	}
	if s.ids.has(env.ID) && (env.Kind == wire.KindEpisodeEnd || !s.following(env.Robot, env.Episode)) {
		s.duplicates.Add(1)
		if env.Kind == wire.KindEpisodeEnd {
			s.endArrived(env.Robot, env.Episode) // the robot repeats its end while it waits for the ack
		}
		return nil
	}
	body, whole, err := s.wholeBody(env)
	if err != nil || !whole {
		return err
	}
	if err := s.deliver(env, body); err != nil {
		if !errors.Is(err, ErrRetry) {
			s.mu.Lock()
			s.dropID(env.ID) // a body that will never be written
			s.mu.Unlock()
		}
		return err
	}
	if err := s.ids.add(env.ID); err != nil {
		return retry(err)
	}
	if env.Chunks > 1 && s.cfg.Group != "" {
		s.unstage(env)
	}
	s.mu.Lock()
	s.dropID(env.ID)
	s.mu.Unlock()
	s.delivered.Add(1)
	if s.cfg.OnDeliver != nil {
		s.cfg.OnDeliver(env)
	}
	return nil
}

// wholeBody is env's whole body: its own, or, for a chunk, the message
// it completes (staged for the group, or held in memory); whole is false
// while chunks are missing.
func (s *Sink) wholeBody(env *wire.Envelope) (body []byte, whole bool, err error) {
	switch {
	case env.Chunks <= 1:
		return env.Body, true, nil
	case s.cfg.Group != "":
		s.chunks.Add(1)
		return s.stageChunk(env)
	}
	s.chunks.Add(1)
	s.mu.Lock()
	p, err := s.addChunk(env)
	if errors.Is(err, ErrRetry) && s.expirePartials(s.now()) {
		p, err = s.addChunk(env) // the caps were held by expired messages
	}
	s.mu.Unlock()
	if err != nil || p == nil {
		return nil, false, err
	}
	// p is the robot's: only this lane changes it.
	if body, whole = assemble(p); !whole {
		return nil, false, fmt.Errorf("sink: %s: no combination of its chunks matches its size and checksum; waiting for other chunks", env.ID)
	}
	return body, true, nil
}
