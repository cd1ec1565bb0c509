package sink

import (
	"bytes"
	"fmt"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// partKey identifies one candidate reassembly. A chunk joins the
// candidate whose every shared field it matches, so a chunk that
// disagrees with its message (forged or corrupt: another chunk count,
// size, checksum, sequence...) starts or joins another candidate instead
// of poisoning the real one; the loser expires.
type partKey struct {
	ID, Robot, Episode, Kind string
	Seq                      uint64
	Chunks, Size, CRC        uint32
}

func keyOf(e *wire.Envelope) partKey {
	return partKey{ID: e.ID, Robot: e.Robot, Episode: e.Episode, Kind: e.Kind, Seq: e.Seq,
		Chunks: e.Chunks, Size: e.Size, CRC: e.CRC}
}

// Bounds of the search for the real body when chunks of one index
// disagree: a few distinct bodies per index, a few combinations tried.
const (
	maxVariants = 4
	maxCombos   = 64
)

// partial is one incomplete message: per chunk index, the distinct
// bodies seen (normally exactly one).
type partial struct {
	key   partKey
	slots [][][]byte
	got   int // indexes with at least one body
	bytes int64
	// failed: every index has a body but no combination matched; only a
	// new body makes another attempt worth its CPU.
	failed bool
	expiry time.Time
}

// robotUse is what one robot's incomplete messages hold.
type robotUse struct {
	n     int
	bytes int64
}

// addChunk stores one chunk. It returns the candidate once every index
// has a body, nil while incomplete. A chunk over a cap is refused with
// ErrRetry: it stays unacknowledged and the broker redelivers it, so a
// cap never drops a message the robot believes delivered.
func (s *Sink) addChunk(e *wire.Envelope) (*partial, error) {
	k := keyOf(e)
	p := s.partials[k]
	if p != nil {
		for _, v := range p.slots[e.Chunk] {
			if bytes.Equal(v, e.Body) {
				s.duplicates.Add(1)
				if p.failed {
					return nil, nil
				}
				return s.complete(p), nil // a redelivery after a failed write
			}
		}
		if len(p.slots[e.Chunk]) >= maxVariants {
			return nil, fmt.Errorf("sink: chunk %d of %s: %d different bodies held already; dropped", e.Chunk, e.ID, maxVariants)
		}
	}
	if err := s.roomFor(e.Robot, p == nil, int64(len(e.Body))); err != nil {
		return nil, err
	}
	if p == nil {
		p = &partial{key: k, slots: make([][][]byte, e.Chunks), expiry: s.now().Add(s.cfg.ChunkTimeout)}
		s.partials[k] = p
		s.robotUse(e.Robot).n++
	}
	if len(p.slots[e.Chunk]) == 0 {
		p.got++
	} else {
		s.log.Warn("sink: chunk disagrees with an earlier one of the same index; both kept", "id", e.ID, "chunk", e.Chunk)
	}
	p.slots[e.Chunk] = append(p.slots[e.Chunk], append([]byte(nil), e.Body...))
	p.failed = false
	n := int64(len(e.Body))
	p.bytes += n
	s.pbytes += n
	s.robotUse(e.Robot).bytes += n
	return s.complete(p), nil
}

func (s *Sink) complete(p *partial) *partial {
	if p.got == len(p.slots) {
		return p
	}
	return nil
}

func (s *Sink) robotUse(robot string) *robotUse {
	u := s.robots[robot]
	if u == nil {
		u = &robotUse{}
		s.robots[robot] = u
	}
	return u
}

// roomFor checks the global and per-robot caps for n more bytes (and a
// new incomplete message when fresh).
func (s *Sink) roomFor(robot string, fresh bool, n int64) error {
	u := s.robots[robot]
	var un int
	var ub int64
	if u != nil {
		un, ub = u.n, u.bytes
	}
	switch {
	case fresh && len(s.partials) >= s.cfg.MaxPartial:
		return fmt.Errorf("%w: %d incomplete messages held (sink cap)", ErrRetry, len(s.partials))
	case fresh && un >= s.cfg.MaxPartialPerRobot:
		return fmt.Errorf("%w: robot %s has %d incomplete messages held (per-robot cap)", ErrRetry, robot, un)
	case s.pbytes+n > s.cfg.MaxPartialBytes:
		return fmt.Errorf("%w: incomplete messages hold %d bytes (sink cap %d)", ErrRetry, s.pbytes, s.cfg.MaxPartialBytes)
	case ub+n > s.cfg.MaxPartialBytesPerRobot:
		return fmt.Errorf("%w: robot %s's incomplete messages hold %d bytes (per-robot cap %d)", ErrRetry, robot, ub, s.cfg.MaxPartialBytesPerRobot)
	}
	return nil
}

// assemble returns the body whose size and checksum match the message's,
// trying the combinations of disagreeing chunk bodies (bounded).
func assemble(p *partial) ([]byte, bool) {
	combos := 1
	for _, v := range p.slots {
		combos = min(combos*len(v), maxCombos)
	}
	body := make([]byte, 0, int(min(int64(p.key.Size), p.bytes)))
	for c := range combos {
		body = body[:0]
		x := c
		for _, v := range p.slots {
			body = append(body, v[x%len(v)]...)
			x /= len(v)
			if len(body) > int(p.key.Size) {
				break
			}
		}
		if len(body) == int(p.key.Size) && wire.Checksum(body) == p.key.CRC {
			return body, true
		}
	}
	p.failed = true
	return nil, false
}

// dropID forgets every candidate of message id.
func (s *Sink) dropID(id string) {
	for k := range s.partials {
		if k.ID == id {
			s.drop(k)
		}
	}
}

func (s *Sink) drop(k partKey) {
	p := s.partials[k]
	if p == nil {
		return
	}
	s.pbytes -= p.bytes
	if u := s.robots[k.Robot]; u != nil {
		u.n--
		u.bytes -= p.bytes
		if u.n == 0 {
			delete(s.robots, k.Robot)
		}
	}
	delete(s.partials, k)
}

// expireEvery is how often expire looks through the incomplete
// messages: every message handled asks, at most one a second pays (the
// maps hold up to ChunkTimeout's worth of messages; looking through
// them per message cost two sinks a fifth of their CPU).
const expireEvery = time.Second

// expire drops the incomplete messages past their timeout, in memory
// under s.mu, then deletes the expired staged chunks from the store
// without it.
func (s *Sink) expire() {
	s.mu.Lock()
	now := s.now()
	if now.Before(s.nextExpire) {
		s.mu.Unlock()
		return
	}
	s.nextExpire = now.Add(expireEvery)
	staged := s.expireStaged()
	s.expirePartials(now)
	s.mu.Unlock()
	for _, dir := range staged {
		s.expireStagedMessage(dir)
	}
	if s.cfg.Group != "" {
		s.scanGroup()
	}
}

// expirePartials drops the incomplete messages past their timeout and
// reports whether it dropped any. Called under s.mu: by expire, and by
// a chunk that found the caps full (expire may not have looked for up
// to expireEvery).
func (s *Sink) expirePartials(now time.Time) (dropped bool) {
	for k, p := range s.partials {
		if now.After(p.expiry) {
			s.drop(k)
			s.expired.Add(1)
			s.log.Warn("sink: incomplete message expired", "id", k.ID, "robot", k.Robot, "chunks", p.got, "of", len(p.slots))
			dropped = true
		}
	}
	return dropped
}
