package mcapexport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// maxFileBytes caps every file read: nothing larger than a wire body
// reaches a store (a sink writes bodies; the robot writes what it ships).
const maxFileBytes = wire.MaxBody

// stored is one file of an episode under kind/CAMERA/.
type stored struct {
	name   string // relative to the episode
	camera string // the camera's directory name
	base   string // the file name
}

// list lists the files under kind/CAMERA/ starting with prefix and
// ending with ext, sorted by name.
func (x *exporter) list(kind, prefix, ext string) ([]stored, error) {
	l, err := x.files.List(kind + "/")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s of %s: %w", kind, x.files, err)
	}
	var out []stored
	for _, f := range l {
		parts := strings.Split(f.Name, "/")
		if len(parts) != 3 || parts[1] == "" || !strings.HasPrefix(parts[2], prefix) || !strings.HasSuffix(parts[2], ext) {
			continue
		}
		out = append(out, stored{name: f.Name, camera: parts[1], base: parts[2]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// rosTime is sheet.Meta's ROS time.
type rosTime struct {
	Secs  int64  `json:"secs"`
	Nsecs uint32 `json:"nsecs"`
}

func (t rosTime) time() time.Time { return time.Unix(t.Secs, int64(t.Nsecs)).UTC() }

// sheetMeta is the part of a sheet's metadata (sheet.Meta, read by its
// JSON names: this package does not import sheet) that places it.
type sheetMeta struct {
	Tiles []struct {
		Seconds float64 `json:"seconds"`
		Stamp   rosTime `json:"stamp"`
	} `json:"tiles"`
	Segment *struct {
		Index int     `json:"index"`
		Start rosTime `json:"start"`
	} `json:"segment"`
}

// sheetTime is when a sheet is shown: a contact sheet at its first
// tile's stamp (else the episode start plus its seconds), a labeling
// sheet at its segment's start. b is its metadata (f's .json).
func (x *exporter) sheetTime(b []byte) (time.Time, error) {
	var m sheetMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return time.Time{}, fmt.Errorf("metadata: %w", err)
	}
	switch {
	case m.Segment != nil && m.Segment.Start != (rosTime{}):
		return m.Segment.Start.time(), nil
	case m.Segment != nil:
		for _, s := range x.e.Segments {
			if s.Index == m.Segment.Index {
				return s.Start, nil
			}
		}
	case len(m.Tiles) > 0 && m.Tiles[0].Stamp != (rosTime{}):
		return m.Tiles[0].Stamp.time(), nil
	case len(m.Tiles) > 0:
		return x.at(m.Tiles[0].Seconds), nil
	}
	return time.Time{}, fmt.Errorf("metadata places it nowhere (no tiles, no segment)")
}

// sheets queues every contact and labeling sheet as a CompressedImage
// at its time; the JPEG is read when it is written. An episode whose
// robot shipped no labeling sheets gets them composed (composed.go).
func (x *exporter) sheets() error {
	labels, err := x.list(episode.LabelsDir, episode.LabelPrefix, ".jpg")
	if err != nil {
		return err
	}
	var contact *contactSheets
	if len(labels) == 0 {
		contact = &contactSheets{byCam: map[string][]sheet.Sheet{}, names: map[string][]string{}}
	}
	if err := x.queueSheets(episode.SheetsDir, episode.SheetPrefix, TopicSheetsPrefix, contact); err != nil {
		return err
	}
	if err := x.queueSheets(episode.LabelsDir, episode.LabelPrefix, TopicLabelsPrefix, nil); err != nil {
		return err
	}
	if contact != nil {
		return x.composedLabels(contact)
	}
	return nil
}

// queueSheets queues the sheets of kind on topic+CAMERA; with keep, it
// also keeps each one's metadata for the labeling sheets to compose.
func (x *exporter) queueSheets(kind, prefix, topic string, keep *contactSheets) error {
	files, err := x.list(kind, prefix, ".jpg")
	if err != nil {
		return err
	}
	for _, f := range files {
		b, _, err := x.files.Get(strings.TrimSuffix(f.name, ".jpg")+".json", maxFileBytes)
		var t time.Time
		if err == nil {
			t, err = x.sheetTime(b)
		}
		if err == nil && keep != nil {
			err = keep.add(f, b)
		}
		if err != nil {
			x.problem("%s: %v: left out", f.name, err)
			continue
		}
		ch, err := x.channel(topic+f.camera, msg.TypeCompressedImage, f.camera)
		if err != nil {
			return err
		}
		x.items = append(x.items, item{t: t, ch: ch, what: f.name, encode: func(dst []byte, seq uint32) ([]byte, error) {
			b, _, err := x.files.Get(f.name, maxFileBytes)
			if err != nil {
				return nil, err
			}
			return msg.AppendCompressedImage(dst, seq, t, "jpeg", b), nil
		}})
	}
	return nil
}

// snippets queues every snippet's samples as JointStates at their
// stamps, on their camera's channel.
func (x *exporter) snippets() error {
	files, err := x.list(episode.SnippetsDir, episode.SheetPrefix, episode.SnippetExt)
	if err != nil {
		return err
	}
	for _, f := range files {
		b, _, err := x.files.Get(f.name, maxFileBytes)
		if err != nil {
			x.problem("%s: %v: left out", f.name, err)
			continue
		}
		s, err := wire.DecodeSnippet(b)
		if err != nil {
			x.problem("%s: %v: left out", f.name, err)
			continue
		}
		ch, err := x.channel(TopicSnippetsPrefix+f.camera, msg.TypeJointState, f.camera)
		if err != nil {
			return err
		}
		for _, j := range s.Samples {
			t := time.Unix(0, j.Stamp).UTC()
			x.items = append(x.items, item{t: t, ch: ch, what: f.name, encode: func(dst []byte, seq uint32) ([]byte, error) {
				return msg.AppendJointState(dst, seq, t, s.Names, j.Position, j.Velocity, j.Effort), nil
			}})
		}
	}
	return nil
}
