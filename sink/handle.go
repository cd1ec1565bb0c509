package sink

import (
	"errors"
	"fmt"

	"github.com/edged-robotics/edged/uplink/wire"
)

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
	body := env.Body
	if env.Chunks > 1 && s.cfg.Group != "" {
		s.chunks.Add(1)
		var done bool
		if body, done, err = s.stageChunk(env); err != nil || !done {
			return err
		}
	} else if env.Chunks > 1 {
		s.chunks.Add(1)
		s.mu.Lock()
		p, err := s.addChunk(env)
		if errors.Is(err, ErrRetry) && s.expirePartials(s.now()) {
			p, err = s.addChunk(env) // the caps were held by expired messages
		}
		s.mu.Unlock()
		if err != nil || p == nil {
			return err
		}
		// p is the robot's: only this lane changes it.
		var ok bool
		if body, ok = assemble(p); !ok {
			return fmt.Errorf("sink: %s: no combination of its chunks matches its size and checksum; waiting for other chunks", env.ID)
		}
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
