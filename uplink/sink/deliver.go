package sink

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"path/filepath"
	"strings"
	"time"

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
		path := filepath.Join(ep, "manifest.json")
		if e.Kind == wire.KindEpisodeStart {
			if _, err := os.Stat(path); err == nil {
				return nil // the end manifest is there already
			}
		}
		return writeJSON(path, manifestJSON(&m))
	case wire.KindSegment:
		var sg wire.Segment
		if err := unmarshalAll(&sg, body); err != nil {
			return fmt.Errorf("sink: segment: %w", err)
		}
		return writeJSON(filepath.Join(ep, "segments", fmt.Sprintf("segment-%04d.json", sg.Index)), segmentJSON(&sg))
	case wire.KindSnippet:
		sn, err := wire.DecodeSnippet(body)
		if err != nil {
			return err
		}
		cam, err := cameraDir(sn.Camera)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(ep, "snippets", cam, fmt.Sprintf("sheet-%04d.msgpack.zst", sn.SheetIndex)), body)
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
		if err := writeFile(base+".jpg", sb.JPEG); err != nil {
			return err
		}
		return writeFile(base+".json", sb.Meta)
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

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return writeFile(path, append(b, '\n'))
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
