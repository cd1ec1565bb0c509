package sink

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/uplink/wire"
)

// What the group staged, as every sink of it sees it in the store.
//
// A sink's own memory (s.staged) knows only the messages it staged
// itself, and forgets them when it stops; the caps on incomplete
// messages and their expiry must hold for what the whole group staged,
// and survive the restart of every sink. So each sink looks at the
// store itself:
//
//   - before it stages the first chunk of a message it does not know,
//     it lists .sink/chunks/ and applies the caps (Config.MaxPartial,
//     MaxPartialPerRobot, MaxPartialBytes, MaxPartialBytesPerRobot) to
//     what the group holds, counting the new message at its announced
//     size (roomToStage). Two sinks checking at once may each admit one
//     message: the caps hold within one message per lane of each sink.
//   - every groupScanEvery (and at its first look, so a restarted sink
//     finds what it or a peer left) it lists .sink/chunks/ and
//     .sink/done/; a staged message it has seen for ChunkTimeout is
//     expired (removed; counted unless a sink delivered it), and a
//     delivered mark seen for doneKeep (twice ChunkTimeout: a chunk
//     redelivered later than that is staged again and expires) is
//     removed, so nothing stays behind per message.
//
// The time is when this sink first saw the message in the store, not
// when it was staged (an object store's listing carries no time): a
// message may live up to ChunkTimeout + groupScanEvery after this sink
// started, never forever.

// groupScanEvery bounds how often a sink lists what the group staged.
const groupScanEvery = time.Minute

// groupStage is one sink's view of what the group staged.
type groupStage struct {
	mu       sync.Mutex
	seen     map[string]time.Time // messageDir or done mark -> first seen in the store
	nextScan time.Time
}

// stagedUse is what one listing of chunksDir holds.
type stagedUse struct {
	messages map[string]int64 // messageDir -> bytes staged
	robots   map[string]robotUse
	bytes    int64
}

func useOf(list []blob.Info) stagedUse {
	u := stagedUse{messages: map[string]int64{}, robots: map[string]robotUse{}}
	for _, f := range list {
		robot, rest, ok := strings.Cut(strings.TrimPrefix(f.Name, chunksDir), "/")
		id, _, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 || !strings.HasPrefix(f.Name, chunksDir) {
			continue
		}
		dir := chunksDir + robot + "/" + id + "/"
		r := u.robots[robot]
		if _, known := u.messages[dir]; !known {
			r.n++
		}
		r.bytes += f.Size
		u.robots[robot] = r
		u.messages[dir] += f.Size
		u.bytes += f.Size
	}
	return u
}

// roomToStage applies the caps on incomplete messages to what the group
// staged, for e's message when no chunk of it is staged yet; a message
// already staged (by this sink or a peer) is let in. A refusal wraps
// ErrRetry: the broker redelivers the chunk once room is made.
func (s *Sink) roomToStage(e *wire.Envelope) error {
	list, err := s.store.List(chunksDir)
	if err != nil {
		return retry(err)
	}
	u := s.expireGroup(list, nil)
	if _, staged := u.messages[messageDir(e)]; staged {
		return nil
	}
	r, size := u.robots[e.Robot], int64(e.Size)
	switch {
	case len(u.messages) >= s.cfg.MaxPartial:
		return fmt.Errorf("%w: the group has %d incomplete messages staged (cap)", ErrRetry, len(u.messages))
	case r.n >= s.cfg.MaxPartialPerRobot:
		return fmt.Errorf("%w: robot %s has %d incomplete messages staged in the group (per-robot cap)", ErrRetry, e.Robot, r.n)
	case u.bytes+size > s.cfg.MaxPartialBytes:
		return fmt.Errorf("%w: the group's staged chunks hold %d bytes, a message of %d more is over the cap %d",
			ErrRetry, u.bytes, size, s.cfg.MaxPartialBytes)
	case r.bytes+size > s.cfg.MaxPartialBytesPerRobot:
		return fmt.Errorf("%w: robot %s's staged chunks hold %d bytes, a message of %d more is over the per-robot cap %d",
			ErrRetry, e.Robot, r.bytes, size, s.cfg.MaxPartialBytesPerRobot)
	}
	return nil
}

// scanGroup, at most every groupScanEvery (at once on the first call),
// expires what the group staged and the delivered marks past their
// time. Called by expire, without s.mu.
func (s *Sink) scanGroup() {
	g := &s.group
	now := s.now()
	g.mu.Lock()
	due := !now.Before(g.nextScan)
	if due {
		g.nextScan = now.Add(min(groupScanEvery, s.cfg.ChunkTimeout/2))
	}
	g.mu.Unlock()
	if !due {
		return
	}
	chunks, err := s.store.List(chunksDir)
	if err != nil {
		s.log.Warn("sink: the group's staged chunks not listed; looking again later", "err", err)
		return
	}
	done, err := s.store.List(doneDir)
	if err != nil {
		s.log.Warn("sink: the group's delivered marks not listed; looking again later", "err", err)
		return
	}
	s.expireGroup(chunks, done)
}

// expireGroup notes when this sink first saw each staged message (and
// each delivered mark, when done is not nil: a full scan), expires
// those seen ChunkTimeout ago (doneKeep for marks), and returns the
// use of what is left. Messages this sink staged itself are its own
// memory's to expire (expireStaged), at their exact time.
func (s *Sink) expireGroup(chunks, done []blob.Info) stagedUse {
	u := useOf(chunks)
	now := s.now()
	var dirs, marks []string
	s.mu.Lock()
	own := func(dir string) bool { return !s.staged[dir].IsZero() }
	g := &s.group
	g.mu.Lock()
	if g.seen == nil {
		g.seen = map[string]time.Time{}
	}
	for dir := range u.messages {
		first, ok := g.seen[dir]
		switch {
		case !ok:
			g.seen[dir] = now
		case now.Sub(first) > s.cfg.ChunkTimeout && !own(dir):
			dirs = append(dirs, dir)
		}
	}
	marked := make(map[string]bool, len(done))
	for _, m := range done {
		marked[m.Name] = true
		first, ok := g.seen[m.Name]
		switch {
		case !ok:
			g.seen[m.Name] = now
		case now.Sub(first) > 2*s.cfg.ChunkTimeout:
			marks = append(marks, m.Name)
		}
	}
	for k := range g.seen { // gone from the store: delivered, or removed by a peer
		_, staged := u.messages[k]
		if strings.HasPrefix(k, chunksDir) && !staged || done != nil && strings.HasPrefix(k, doneDir) && !marked[k] {
			delete(g.seen, k)
		}
	}
	for _, dir := range dirs {
		delete(g.seen, dir)
		u.forget(dir)
	}
	for _, m := range marks {
		delete(g.seen, m)
	}
	g.mu.Unlock()
	s.mu.Unlock()
	for _, dir := range dirs {
		s.expireStagedMessage(dir)
	}
	for _, m := range marks {
		if err := s.store.Delete(m); err != nil {
			s.log.Warn("sink: delivered mark not removed; trying again later", "name", m, "err", err)
		}
	}
	return u
}

// forget takes dir's message out of u.
func (u *stagedUse) forget(dir string) {
	robot, _, _ := strings.Cut(strings.TrimPrefix(dir, chunksDir), "/")
	r := u.robots[robot]
	r.n--
	r.bytes -= u.messages[dir]
	u.robots[robot] = r
	u.bytes -= u.messages[dir]
	delete(u.messages, dir)
}
