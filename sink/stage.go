package sink

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Chunks across sinks. With a Group, the broker may hand the chunks of
// one message to different sinks, so each chunk is staged in the shared
// store before it is acknowledged, under
//
//	.sink/chunks/ROBOT/ID/KEY/NNNNNN-CRC
//
// (KEY: a checksum of every field the chunks of one message share, so a
// forged chunk starts another candidate, as in memory; CRC: the chunk
// body's, so disagreeing bodies of one index are all kept). The sink
// whose chunk completes the set assembles the message from the staged
// chunks and its own (which it does not stage) and delivers it; two
// sinks completing it at once both deliver the same content, which the
// receiver makes a no-op. After delivery the sink writes
// .sink/done/ID, so a chunk redelivered later is known as a duplicate by
// every sink, and removes the staged chunks.
const (
	chunksDir = ".sink/chunks/"
	doneDir   = ".sink/done/"
)

// messageDir is where every candidate of e's message is staged.
func messageDir(e *wire.Envelope) string { return chunksDir + e.Robot + "/" + e.ID + "/" }

// stageDir is where e's candidate of its message is staged.
func stageDir(e *wire.Envelope) string {
	k := keyOf(e)
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%d", k.Robot, k.Episode, k.Kind, k.Seq, k.Chunks, k.Size, k.CRC)
	return messageDir(e) + strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(key))), 16) + "/"
}

// stageChunk stores chunk e in the shared store and, when every index
// of its message is staged, returns the assembled body (done true).
//
// The chunks the peers staged are looked at first: when they complete
// the message with e, e is not staged at all (nor read back, nor
// removed). With a round-robin broker the sink that completes a message
// is the one behind (its peer staged the other chunks first), and
// assembling and delivering sheets is most of a sink's work; the less
// of it the one behind does, the less it stays behind.
func (s *Sink) stageChunk(e *wire.Envelope) (body []byte, done bool, err error) {
	if _, _, err := s.store.Get(doneDir+e.ID, 0); err == nil {
		s.duplicates.Add(1)
		return nil, false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, retry(err)
	}
	dir := stageDir(e)
	own := fmt.Sprintf("%s%06d-%08x", dir, e.Chunk, wire.Checksum(e.Body))
	if body, err := s.assembleStaged(e, dir, own); !errors.Is(err, errIncomplete) && !errors.Is(err, errNoCombination) {
		return body, err == nil, err // assembled, or a failure
	}
	msg := messageDir(e)
	s.mu.Lock()
	known := !s.staged[msg].IsZero()
	s.mu.Unlock()
	if !known { // the group's caps, for a message this sink has not staged (stagecaps.go)
		if err := s.roomToStage(e); err != nil {
			return nil, false, err
		}
	}
	if _, err := s.store.Put(own, e.Body, blob.Cond{IfAbsent: true}); err != nil && !errors.Is(err, blob.ErrPrecondition) {
		return nil, false, retry(err)
	}
	s.mu.Lock()
	if s.staged[msg].IsZero() {
		s.staged[msg] = s.now().Add(s.cfg.ChunkTimeout)
	}
	s.mu.Unlock()
	// Staged, then listed again: of two sinks staging a message's last
	// two chunks at once, at least one sees both.
	switch body, err = s.assembleStaged(e, dir, own); {
	case errors.Is(err, errIncomplete):
		return nil, false, nil // acknowledged: its chunk is staged
	case errors.Is(err, errNoCombination):
		return nil, false, fmt.Errorf("sink: %s: %w; waiting for other chunks", e.ID, err)
	case err != nil:
		return nil, false, err
	}
	return body, true, nil
}

var (
	errIncomplete    = errors.New("an index of the message has no chunk staged")
	errNoCombination = errors.New("no combination of its staged chunks matches its size and checksum")
)

// assembleStaged assembles e's message from e and the chunks staged
// under dir (own is e's name there); errIncomplete while an index has
// no chunk, errNoCombination when no combination of what is there
// matches.
func (s *Sink) assembleStaged(e *wire.Envelope, dir, own string) ([]byte, error) {
	list, err := s.store.List(dir)
	if err != nil {
		return nil, retry(err)
	}
	p, err := s.readStaged(e, dir, own, list)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errIncomplete
	}
	body, ok := assemble(p)
	if !ok {
		return nil, errNoCombination
	}
	return body, nil
}

// readStaged reads the staged chunks of e's message, with e itself
// (named own), once every index has one (nil before), within the caps:
// at most maxVariants bodies per index, each at most MaxMessage, all at
// most maxVariants x Size.
func (s *Sink) readStaged(e *wire.Envelope, dir, own string, list []blob.Info) (*partial, error) {
	p := &partial{key: keyOf(e), slots: make([][][]byte, e.Chunks)}
	p.slots[e.Chunk] = [][]byte{nil} // e itself: counted here, put back below
	p.got, p.bytes = 1, int64(len(e.Body))
	type staged struct {
		name string
		idx  int
	}
	var others []staged
	total := p.bytes
	for _, f := range list {
		var idx int
		if f.Name == own {
			continue
		}
		if _, err := fmt.Sscanf(strings.TrimPrefix(f.Name, dir), "%06d-", &idx); err != nil || idx < 0 || idx >= len(p.slots) ||
			len(p.slots[idx]) >= maxVariants {
			continue
		}
		if len(p.slots[idx]) == 0 {
			p.got++
		}
		p.slots[idx] = append(p.slots[idx], nil) // counted here, read below
		others = append(others, staged{f.Name, idx})
		total += f.Size
	}
	if p.got < len(p.slots) {
		return nil, nil
	}
	if total > int64(maxVariants)*int64(e.Size)+int64(maxVariants) {
		return nil, fmt.Errorf("sink: %s: staged chunks hold %d bytes for a message of %d; dropped", e.ID, total, e.Size)
	}
	for i := range p.slots {
		p.slots[i] = p.slots[i][:0]
	}
	p.slots[e.Chunk] = append(p.slots[e.Chunk], e.Body)
	for _, o := range others {
		b, _, err := s.store.Get(o.name, int64(s.cfg.MaxMessage))
		if errors.Is(err, fs.ErrNotExist) {
			// Another sink delivered the message and removed its chunks.
			return nil, nil
		}
		if err != nil {
			return nil, retry(err)
		}
		p.slots[o.idx] = append(p.slots[o.idx], b)
		p.bytes += int64(len(b))
	}
	return p, nil
}

// unstage marks e's message delivered for every sink, then removes its
// staged chunks. A failure here loses nothing (the message is written);
// the chunks left behind expire.
func (s *Sink) unstage(e *wire.Envelope) {
	if _, err := s.store.Put(doneDir+e.ID, nil, blob.Cond{}); err != nil {
		s.log.Warn("sink: delivered mark not written; a late chunk of this message may stay staged until it expires", "id", e.ID, "err", err)
	}
	dir := messageDir(e)
	s.removeStaged(dir)
	s.mu.Lock()
	delete(s.staged, dir)
	s.mu.Unlock()
}

// removeStaged deletes what is staged under dir and returns how many
// chunks it found.
func (s *Sink) removeStaged(dir string) int {
	list, err := s.store.List(dir)
	if err != nil {
		s.log.Warn("sink: staged chunks not listed for removal", "dir", dir, "err", err)
		return 0
	}
	for _, f := range list {
		if err := s.store.Delete(f.Name); err != nil {
			s.log.Warn("sink: staged chunk not removed", "name", f.Name, "err", err)
			break
		}
	}
	return len(list)
}

// expireStaged forgets the messages whose chunks this sink staged
// ChunkTimeout ago and returns their directories, for expire to look
// at and clean without s.mu. Called under s.mu.
func (s *Sink) expireStaged() (dirs []string) {
	now := s.now()
	for dir, t := range s.staged {
		if now.After(t) {
			dirs = append(dirs, dir)
			delete(s.staged, dir)
		}
	}
	return dirs
}

// expireStagedMessage removes what is left of a message staged ChunkTimeout
// ago. Most of them were assembled by another sink of the group (which
// then removed the chunks, or left them to expire and wrote
// .sink/done/ID): those are no news. The rest stayed incomplete: each
// is logged and counted (Expired).
func (s *Sink) expireStagedMessage(dir string) {
	if s.removeStaged(dir) == 0 {
		return
	}
	id := path.Base(strings.TrimSuffix(dir, "/"))
	if _, _, err := s.store.Get(doneDir+id, 0); err == nil {
		return
	}
	s.expired.Add(1)
	s.log.Warn("sink: staged chunks of an incomplete message expired", "dir", dir)
}

// safeName maps s onto the characters of wire.SafeName.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "host"
	}
	return string(b)
}
