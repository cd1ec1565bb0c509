package clip

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// Topics of what edged itself adds to a clip (JSON messages).
const (
	TopicTransitions = episode.ClipTopicTransitions
	TopicSegments    = episode.ClipTopicSegments
	// MetadataName names the clip's Metadata record.
	MetadataName = "edged.clip"
)

// Schema and message encodings of the channels a clip writes.
const (
	encJSON     = "json"
	encJSONSchm = "jsonschema"
)

// frameEncoder turns a ring's frame into the CompressedImage it is
// written as: compressed frames as received, raw ones as JPEG at
// quality. It belongs to one goroutine (the TurboJPEG handle).
type frameEncoder struct {
	enc     *turbojpeg.Encoder
	quality int
	rgb     []byte
	jpeg    []byte
}

// image returns the CompressedImage's format and data of a frame.
func (e *frameEncoder) image(m ringbuf.Meta, data []byte) (format string, out []byte, err error) {
	if m.Format != capture.FormatRaw {
		format = m.Encoding
		if format == "" {
			format = m.Format.String()
		}
		return format, data, nil
	}
	e.rgb, err = sheet.RawToRGB(e.rgb, m.Encoding, m.Width, m.Height, m.Step, m.BigEndian, data, turbojpeg.DefaultLimits)
	if err != nil {
		return "", nil, err
	}
	e.jpeg, err = e.enc.Encode(e.jpeg, e.rgb, m.Width, m.Height, m.Width*3, e.quality, turbojpeg.Subsamp420)
	if err != nil {
		return "", nil, err
	}
	return "rgb8; jpeg compressed rgb8", e.jpeg, nil
}

// channels are the clip's channel ids by what they carry.
type channels struct {
	cams        []uint16 // by listed camera
	joints      map[string]uint16
	transitions uint16
	segments    uint16
}

// addChannels declares the schemas and every channel, each channel
// naming the episode and the trigger in its metadata (meta).
func addChannels(w *mcap.Writer, d *dialect, cams []listed, jointTopics []string, meta map[string]string) (channels, error) {
	var ch channels
	img, err := w.AddSchema(d.imageType, d.schemaEncoding, []byte(d.imageSchema))
	if err != nil {
		return ch, err
	}
	for _, c := range cams {
		m := withMeta(meta, "camera", c.cam.Name)
		id, err := w.AddChannel(img, c.cam.Topic, d.messageEncoding, m)
		if err != nil {
			return ch, err
		}
		ch.cams = append(ch.cams, id)
	}
	js, err := w.AddSchema(d.jointType, d.schemaEncoding, []byte(d.jointSchema))
	if err != nil {
		return ch, err
	}
	ch.joints = map[string]uint16{}
	for _, t := range jointTopics {
		if ch.joints[t], err = w.AddChannel(js, t, d.messageEncoding, meta); err != nil {
			return ch, err
		}
	}
	if ch.transitions, err = jsonChannel(w, "edged.Transition", TopicTransitions, meta); err != nil {
		return ch, err
	}
	ch.segments, err = jsonChannel(w, "edged.Segment", TopicSegments, meta)
	return ch, err
}

func jsonChannel(w *mcap.Writer, name, topic string, meta map[string]string) (uint16, error) {
	schema := fmt.Sprintf(`{"title":%q,"type":"object","description":"edged's episode format (docs/clips.md)"}`, name)
	id, err := w.AddSchema(name, encJSONSchm, []byte(schema))
	if err != nil {
		return 0, err
	}
	return w.AddChannel(id, topic, encJSON, meta)
}

func withMeta(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

// jsonMessage writes v as one JSON message at t.
func jsonMessage(w *mcap.Writer, ch uint16, seq uint32, t time.Time, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.WriteMessage(ch, seq, nanos(t), nanos(t), b)
}

// nanos is t as an MCAP time (nanoseconds since the epoch; 0 before it).
func nanos(t time.Time) uint64 {
	if t.Before(time.Unix(0, 0)) {
		return 0
	}
	return uint64(t.UnixNano())
}
