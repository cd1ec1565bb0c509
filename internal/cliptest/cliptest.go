// Package cliptest reads an incident clip (package clip) back for the
// tests of clip, pipeline, daemon and replay: one reader of a clip's
// file, low enough (bag/mcap, ros/msg, ros2/cdr) for clip's own tests
// to import. Tests only; no state, no goroutines.
package cliptest

import (
	"fmt"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// Clip is what Read found in a clip.
type Clip struct {
	Stamps   []time.Time                  // header stamps of the camera's frames, in order
	FrameIDs []string                     // header frame_ids of the camera's frames, in order
	PerTopic map[string]int               // messages per topic
	Metadata map[string]map[string]string // Metadata records by name (clip.MetadataName)
	// Encodings are each topic's schema and message encodings
	// ("ros2msg cdr", "ros1msg ros1", "jsonschema json").
	Encodings map[string]string
	// First is each topic's first message decoded, as JSON would hold
	// it (Tree): what Foxglove's deserializers must decode too
	// (CheckFoxgloveDecodes).
	First map[string]any
}

// Read reads a clip with edged's MCAP reader: indexed with its CRCs
// checked (unless it holds no message), every channel naming its
// episode and with its schema, every ROS message decoding with its
// channel's schema (ros1msg through ros/msg, ros2msg through ros2/cdr),
// camera's frames JPEG CompressedImages. It fails the test otherwise.
func Read(t testing.TB, path, camera string) Clip {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{VerifyDataCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if info := r.Info(); info.Messages > 0 && (!info.Indexed || !info.DataCRCChecked) || len(info.Problems) > 0 {
		t.Fatalf("clip not indexed or damaged: %+v", info)
	}
	c := Clip{PerTopic: map[string]int{}, Metadata: map[string]map[string]string{}, Encodings: map[string]string{},
		First: map[string]any{}}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		c.PerTopic[m.Channel.Topic]++
		if m.Channel.Metadata["episode"] == "" || m.Channel.Schema == nil {
			t.Fatalf("channel %s: metadata %v, schema %v", m.Channel.Topic, m.Channel.Metadata, m.Channel.Schema)
		}
		v := decodeWithSchema(t, m)
		if c.PerTopic[m.Channel.Topic] == 1 {
			c.Encodings[m.Channel.Topic] = m.Channel.Schema.Encoding + " " + m.Channel.MessageEncoding
			c.First[m.Channel.Topic] = firstTree(t, m, v)
		}
		if m.Channel.Topic == camera {
			sc := m.Channel.Schema
			if err := CheckCameraSchema(sc.Name, sc.Encoding, m.Channel.MessageEncoding, sc.Data); err != nil {
				t.Fatal(err)
			}
			if f, _ := v.Get("format"); f != "jpeg" {
				t.Fatalf("frame %d: format %v, want jpeg", m.Sequence, f)
			}
			c.Stamps = append(c.Stamps, stampOf(t, v))
			c.FrameIDs = append(c.FrameIDs, frameIDOf(t, v))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, md := range r.Metadata() {
		c.Metadata[md.Name] = md.Metadata
	}
	return c
}

// CheckCameraSchema: a camera channel is a CompressedImage with the ROS
// type's own definition, ROS1 (ROS's md5sum) or ROS 2 (ros2/cdr parses
// it).
func CheckCameraSchema(name, schemaEnc, msgEnc string, data []byte) error {
	switch {
	case schemaEnc == "ros1msg" && msgEnc == "ros1":
		d, err := msg.Parse(name, string(data))
		if err == nil && d.MD5() != msg.MD5CompressedImage {
			err = fmt.Errorf("md5 %s, ROS's %s", d.MD5(), msg.MD5CompressedImage)
		}
		return err
	case schemaEnc == "ros2msg" && msgEnc == "cdr" && name == cdr.TypeCompressedImage:
		_, err := cdr.Parse(name, string(data))
		return err
	}
	return fmt.Errorf("schema %s %s, messages %s: not a CompressedImage of ROS1 or ROS 2", name, schemaEnc, msgEnc)
}

// decodeWithSchema decodes a ROS message of a clip with its channel's
// schema (nil for edged's JSON channels).
func decodeWithSchema(t testing.TB, m mcap.Message) *msg.Value {
	t.Helper()
	sc := m.Channel.Schema
	var v *msg.Value
	var err error
	switch {
	case sc.Encoding == "ros1msg" && m.Channel.MessageEncoding == "ros1":
		var d *msg.Definition
		if d, err = msg.Parse(sc.Name, string(sc.Data)); err == nil {
			v, err = d.Decode(m.Data)
		}
	case sc.Encoding == "ros2msg" && m.Channel.MessageEncoding == "cdr":
		var d *cdr.Definition
		if d, err = cdr.Parse(sc.Name, string(sc.Data)); err == nil {
			v, err = d.Decode(m.Data)
		}
	case sc.Encoding == "jsonschema" && m.Channel.MessageEncoding == "json":
		return nil
	default:
		err = fmt.Errorf("schema %s %s, messages %s", sc.Name, sc.Encoding, m.Channel.MessageEncoding)
	}
	if err != nil {
		t.Fatalf("%s message %d does not decode as its schema says: %v", m.Channel.Topic, m.Sequence, err)
	}
	return v
}

// frameIDOf is the header frame_id of a decoded ROS1 or ROS 2 message.
func frameIDOf(t testing.TB, v *msg.Value) string {
	t.Helper()
	id, err := v.Get("header.frame_id")
	s, ok := id.(string)
	if err != nil || !ok {
		t.Fatalf("no header frame_id in %v: %v", v, err)
	}
	return s
}

// stampOf is the header stamp of a decoded ROS1 or ROS 2 message.
func stampOf(t testing.TB, v *msg.Value) time.Time {
	t.Helper()
	if st, ok := cdr.Stamp(v); ok {
		return st.Time()
	}
	st, err := v.Get("header.stamp")
	if ts, ok := st.(msg.Time); err == nil && ok {
		return ts.Time()
	}
	t.Fatalf("no header stamp in %v: %v", v, err)
	return time.Time{}
}
