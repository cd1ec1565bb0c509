package sink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/uplink/wire"
)

// deliver writes one whole message's files.
func (s *Sink) deliver(e *wire.Envelope, body []byte) error {
	ep := filepath.Join(s.cfg.Out, e.Robot, e.Episode)
	switch e.Kind {
	case wire.KindEpisodeStart, wire.KindEpisodeEnd:
		var m wire.Manifest
		if err := unmarshalAll(&m, body); err != nil {
			return fmt.Errorf("sink: manifest: %w", err)
		}
		return s.writeManifest(filepath.Join(ep, "manifest.json"), e.Kind, &m)
	case wire.KindSegment:
		var sg wire.Segment
		if err := unmarshalAll(&sg, body); err != nil {
			return fmt.Errorf("sink: segment: %w", err)
		}
		return s.putJSON(filepath.Join(ep, "segments", fmt.Sprintf("segment-%04d.json", sg.Index)), segmentJSON(&sg))
	case wire.KindSnippet:
		sn, err := wire.DecodeSnippet(body)
		if err != nil {
			return err
		}
		cam, err := cameraDir(sn.Camera)
		if err != nil {
			return err
		}
		return s.put(filepath.Join(ep, "snippets", cam, fmt.Sprintf("sheet-%04d.msgpack.zst", sn.SheetIndex)), body)
	case wire.KindSheet, wire.KindLabelSheet:
		var sb wire.SheetBody
		if err := unmarshalAll(&sb, body); err != nil {
			return fmt.Errorf("sink: sheet: %w", err)
		}
		cam, err := cameraDir(sb.Camera)
		if err != nil {
			return err
		}
		if !wire.SafeName(sb.Name) || !json.Valid(sb.Meta) || len(sb.JPEG) < 4 || sb.JPEG[0] != 0xff || sb.JPEG[1] != 0xd8 {
			return errors.New("sink: sheet: bad name, metadata or JPEG")
		}
		dir := "sheets"
		if e.Kind == wire.KindLabelSheet {
			dir = "labels"
		}
		base := filepath.Join(ep, dir, cam, sb.Name)
		if err := s.put(base+".jpg", sb.JPEG); err != nil {
			return err
		}
		return s.put(base+".json", sb.Meta)
	}
	return fmt.Errorf("sink: kind %s has no writer", e.Kind)
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

// cameraDir turns a camera topic into one directory name.
func cameraDir(camera string) (string, error) {
	d := strings.ReplaceAll(strings.Trim(camera, "/"), "/", "_")
	if !wire.SafeName(d) {
		return "", fmt.Errorf("sink: bad camera name %.140q", camera)
	}
	return d, nil
}

// writeFile is the default Sink.writeFn: directories, then an atomic
// write (temp file, fsync, rename, fsync of the directory).
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}

// errConflict: a file exists with another content. Such a message is
// refused (acknowledged, counted in Stats.Conflicts, logged): a file once
// written is never replaced by a different one, so a forged message
// cannot overwrite a robot's data.
var errConflict = errors.New("sink: a file with a different content exists already; not overwritten")

// put writes path once: absent, it is written; present with the same
// content (a redelivery whose id was forgotten), nothing happens;
// present with another content, errConflict. Write and read failures
// wrap ErrRetry.
func (s *Sink) put(path string, b []byte) error {
	same, err := sameContent(path, b)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := s.writeFn(path, b); err != nil {
			return retry(err)
		}
		return nil
	case err != nil:
		return retry(err)
	case !same:
		return fmt.Errorf("%w: %s", errConflict, path)
	}
	return nil
}

// sameContent reports whether path holds exactly b, reading at most
// len(b) bytes of it.
func sameContent(path string, b []byte) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(b)) {
		return false, nil
	}
	old, err := fsutil.ReadFileCapped(path, int64(len(b)))
	if err != nil {
		return false, err
	}
	return bytes.Equal(old, b), nil
}

func (s *Sink) putJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return s.put(path, append(b, '\n'))
}

// writeManifest: episode_start is written when there is no manifest yet;
// episode_end replaces an open manifest (closed false) and is otherwise
// written once like every other file.
func (s *Sink) writeManifest(path, kind string, m *wire.Manifest) error {
	b, err := json.MarshalIndent(manifestJSON(m), "", "  ")
	if err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	b = append(b, '\n')
	old, err := fsutil.ReadFileCapped(path, 1<<20)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s.put(path, b)
	case err != nil:
		return retry(err)
	case kind == wire.KindEpisodeStart:
		return nil // a manifest is there already, maybe the end one
	}
	var prev struct {
		Closed bool `json:"closed"`
	}
	if json.Unmarshal(old, &prev) == nil && !prev.Closed {
		if err := s.writeFn(path, b); err != nil {
			return retry(err)
		}
		return nil
	}
	return s.put(path, b)
}

func ts(ns int64) *time.Time {
	if ns == 0 {
		return nil
	}
	t := time.Unix(0, ns).UTC()
	return &t
}

func manifestJSON(m *wire.Manifest) any {
	return struct {
		ID          string     `json:"id"`
		Robot       string     `json:"robot"`
		Name        string     `json:"name,omitempty"`
		Instruction string     `json:"instruction,omitempty"`
		Start       *time.Time `json:"start,omitempty"`
		End         *time.Time `json:"end,omitempty"`
		Closed      bool       `json:"closed"`
		Outcome     string     `json:"outcome,omitempty"`
		EndReason   string     `json:"end_reason,omitempty"`
		Segments    int64      `json:"segments"`
		Transitions int64      `json:"transitions"`
		Created     *time.Time `json:"created,omitempty"`
	}{m.ID, m.Robot, m.Name, m.Instruction, ts(m.Start), ts(m.End), m.Closed, m.Outcome, m.EndReason,
		m.Segments, m.Transitions, ts(m.Created)}
}

func segmentJSON(s *wire.Segment) any {
	return struct {
		Index    int64      `json:"index"`
		Start    *time.Time `json:"start,omitempty"`
		End      *time.Time `json:"end,omitempty"`
		StartSec float64    `json:"start_sec"`
		EndSec   float64    `json:"end_sec"`
		Label    string     `json:"label"`
		Path     string     `json:"path,omitempty"`
		Source   string     `json:"source"`
		Kind     string     `json:"kind"`
		Outcome  string     `json:"outcome"`
		GoalID   string     `json:"goal_id,omitempty"`
	}{s.Index, ts(s.Start), ts(s.End), s.StartSec, s.EndSec, s.Label, s.Path, s.Source, s.Kind, s.Outcome, s.GoalID}
}
