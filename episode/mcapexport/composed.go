package mcapexport

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/sheet"
)

// contactSheets are the contact sheets' metadata of an episode whose
// robot shipped no labeling sheets, by camera directory, and each one's
// JPEG name (relative to the episode): what composing its labeling
// sheets needs besides the JPEGs, read when each is written.
type contactSheets struct {
	byCam map[string][]sheet.Sheet // metadata only: JPEG nil
	names map[string][]string
}

// add keeps f's metadata b.
func (c *contactSheets) add(f stored, b []byte) error {
	var m sheet.Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	c.byCam[f.camera] = append(c.byCam[f.camera], sheet.Sheet{Meta: m})
	c.names[f.camera] = append(c.names[f.camera], f.name)
	return nil
}

// composedLabels queues, per camera with contact sheets, each segment's
// labeling sheet on /edged/labels/CAMERA at its start, as the shipped
// ones were: composed when it is written (sheet.LabelImage, the one
// owner of that image), from the JPEGs of the contact sheets its tiles
// come from, read then and dropped once it is encoded.
func (x *exporter) composedLabels(c *contactSheets) error {
	for _, cam := range slices.Sorted(maps.Keys(c.byCam)) {
		sheets, names := c.byCam[cam], c.names[cam]
		ch, err := x.channel(TopicLabelsPrefix+cam, msg.TypeCompressedImage, cam)
		if err != nil {
			return err
		}
		load := func(i int) ([]byte, error) {
			b, _, err := x.files.Get(names[i], maxFileBytes)
			return b, err
		}
		for _, s := range x.e.Segments {
			what := path.Join(episode.LabelsDir, cam, episode.LabelName(s.Index)+".jpg") + " (composed from the contact sheets)"
			x.items = append(x.items, item{t: s.Start, ch: ch, what: what, encode: func(dst []byte, seq uint32) ([]byte, error) {
				img, err := sheet.LabelImage(sheets, s.StartSec, s.EndSec, load)
				if err != nil {
					return nil, err
				}
				return msg.AppendCompressedImage(dst, seq, s.Start, "jpeg", img), nil
			}})
		}
	}
	return nil
}
