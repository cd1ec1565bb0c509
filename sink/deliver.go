package sink

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/sink/receive"
	"github.com/edged-robotics/edged/uplink/wire"
)

// deliver hands one whole message to the episode receiver, which writes
// it in the robot's own format (receive.Receiver); the sink only decodes
// the wire bodies. An episode that this message made complete is queued
// for acknowledgement to its robot.
func (s *Sink) deliver(e *wire.Envelope, body []byte) error {
	completed, err := s.receive(e, body)
	switch {
	case errors.Is(err, receive.ErrConflict):
		return fmt.Errorf("%w: %w", errConflict, err)
	case errors.Is(err, receive.ErrRefused):
		return err
	case err != nil:
		return retry(err)
	}
	switch {
	case completed:
		s.completed(e.Robot, e.Episode)
	case e.Kind == wire.KindEpisodeEnd:
		s.endArrived(e.Robot, e.Episode)
	}
	return nil
}

func (s *Sink) receive(e *wire.Envelope, body []byte) (bool, error) {
	r := s.recv
	switch e.Kind {
	case wire.KindEpisodeStart, wire.KindEpisodeEnd:
		var m wire.Manifest
		if err := unmarshalAll(&m, body); err != nil {
			return false, fmt.Errorf("%w: manifest: %w", receive.ErrRefused, err)
		}
		if m.ID != e.Episode || m.Closed != (e.Kind == wire.KindEpisodeEnd) {
			return false, fmt.Errorf("%w: %s manifest of %.140q (closed %v) in a message of episode %s",
				receive.ErrRefused, e.Kind, m.ID, m.Closed, e.Episode)
		}
		return r.Manifest(e.Robot, episode.ManifestFromWire(&m))
	case wire.KindSegment:
		var sg wire.Segment
		if err := unmarshalAll(&sg, body); err != nil {
			return false, fmt.Errorf("%w: segment: %w", receive.ErrRefused, err)
		}
		return r.Segment(e.Robot, e.Episode, episode.SegmentFromWire(&sg))
	case wire.KindSnippet:
		sn, err := wire.DecodeSnippet(body)
		if err != nil {
			return false, fmt.Errorf("%w: %w", receive.ErrRefused, err)
		}
		if sn.Episode != e.Episode || sn.SheetIndex != int64(e.Seq) {
			return false, fmt.Errorf("%w: snippet of %.140q sheet %d in a message of %s seq %d",
				receive.ErrRefused, sn.Episode, sn.SheetIndex, e.Episode, e.Seq)
		}
		return r.Snippet(e.Robot, e.Episode, sn.Camera, int(sn.SheetIndex), body)
	case wire.KindSheet, wire.KindLabelSheet:
		var sb wire.SheetBody
		if err := unmarshalAll(&sb, body); err != nil {
			return false, fmt.Errorf("%w: sheet: %w", receive.ErrRefused, err)
		}
		if !json.Valid(sb.Meta) || len(sb.JPEG) < 4 || sb.JPEG[0] != 0xff || sb.JPEG[1] != 0xd8 {
			return false, fmt.Errorf("%w: sheet: bad metadata or JPEG", receive.ErrRefused)
		}
		return r.Sheet(e.Robot, e.Episode, sb.Camera, sb.Name, e.Kind == wire.KindLabelSheet, sb.JPEG, sb.Meta)
	case wire.KindClip:
		var c wire.Clip
		if err := unmarshalAll(&c, body); err != nil {
			return false, fmt.Errorf("%w: clip: %w", receive.ErrRefused, err)
		}
		return r.Clip(e.Robot, e.Episode, episode.ClipFromWire(&c))
	}
	return false, fmt.Errorf("%w: kind %s has no writer", receive.ErrRefused, e.Kind)
}

type unmarshaler interface {
	UnmarshalMsg([]byte) ([]byte, error)
}

func unmarshalAll(v unmarshaler, b []byte) error {
	rest, err := v.UnmarshalMsg(b)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%d trailing bytes", len(rest))
	}
	return err
}

// writeFile is the default Sink.writeFn: directories, then an atomic
// write (temp file, fsync, rename, fsync of the directory).
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}

// errConflict: what arrived differs from what the sink holds (a file
// with another content, another record for a segment index, another end
// manifest). Such a message is refused (acknowledged, counted in
// Stats.Conflicts, logged): nothing once written is replaced, so a
// forged message cannot overwrite a robot's data.
var errConflict = errors.New("sink: different content is held already; not replaced")
