package pipelinetest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// CheckClipWithMcapCore: Foxglove's reader opens the clip through its
// summary and indexes, CRCs matching, and finds every message per topic
// that edged's reader found, the camera's with its ROS1 or ROS 2 schema.
func CheckClipWithMcapCore(t *testing.T, path, camera string, perTopic map[string]int) {
	t.Helper()
	v := mcaptest.ReadFile(t, path)
	ix := v.Indexed
	if !ix.DataCrcMatches || len(ix.Compressions) == 0 || ix.Compressions[0] != mcap.CompressionZstd || !v.Stream.Done {
		t.Errorf("@mcap/core: data CRC matches %v, chunks %v, stream done %v", ix.DataCrcMatches, ix.Compressions, v.Stream.Done)
	}
	byTopic := maps.Clone(ix.ByTopic)
	maps.DeleteFunc(byTopic, func(_ string, n int) bool { return n == 0 }) // a channel without messages (no segment yet)
	if !maps.Equal(byTopic, perTopic) {
		t.Errorf("@mcap/core: messages per topic %v, edged's reader %v", ix.ByTopic, perTopic)
	}
	for _, c := range ix.Channels {
		if c.Topic != camera {
			continue
		}
		i := slices.IndexFunc(ix.Schemas, func(s mcaptest.Schema) bool { return s.ID == c.SchemaID })
		if i < 0 {
			t.Fatalf("@mcap/core: camera channel %+v without its schema", c)
		}
		s := ix.Schemas[i]
		if err := checkCameraSchema(s.Name, s.Encoding, c.MessageEncoding, s.Data); err != nil {
			t.Errorf("@mcap/core: camera channel %+v: %v", c, err)
		}
	}
}

// checkCameraSchema: a camera channel is a CompressedImage with the
// ROS type's own definition, ROS1 (ROS's md5sum) or ROS 2 (ros2/cdr
// parses it).
func checkCameraSchema(name, schemaEnc, msgEnc string, data []byte) error {
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

// BagFrames are the header stamps of the frames of the bag's
// CompressedImage topic camera stamped in [from, to].
func BagFrames(t *testing.T, path, camera string, from, to time.Time) []time.Time {
	t.Helper()
	r, err := bag.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(camera)
	defer it.Close()
	var stamps []time.Time
	for it.Next() {
		var img msg.CompressedImage
		if err := msg.DecodeCompressedImage(it.Message().Data, &img); err != nil {
			t.Fatal(err)
		}
		if s := img.Header.Stamp.Time(); !s.Before(from) && !s.After(to) {
			stamps = append(stamps, s)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return stamps
}

// ReadClip reads a clip with edged's MCAP reader (indexed, CRCs
// checked, every channel naming its episode and with its schema): the
// header stamps of camera's frames (JPEG CompressedImages decoding as
// their schema says), the messages per topic, the clip's metadata.
func ReadClip(t *testing.T, path, camera string) (stamps []time.Time, perTopic map[string]int, meta map[string]string) {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{VerifyDataCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if info := r.Info(); !info.Indexed || !info.DataCRCChecked || len(info.Problems) > 0 {
		t.Fatalf("clip: %+v", info)
	}
	perTopic = map[string]int{}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		perTopic[m.Channel.Topic]++
		if m.Channel.Metadata["episode"] == "" || m.Channel.Schema == nil {
			t.Fatalf("channel %s: metadata %v, schema %v", m.Channel.Topic, m.Channel.Metadata, m.Channel.Schema)
		}
		if m.Channel.Topic == camera {
			sc := m.Channel.Schema
			if err := checkCameraSchema(sc.Name, sc.Encoding, m.Channel.MessageEncoding, sc.Data); err != nil {
				t.Fatal(err)
			}
			var img msg.CompressedImage
			decode := msg.DecodeCompressedImage
			if m.Channel.MessageEncoding == "cdr" {
				decode = cdr.DecodeCompressedImage
			}
			if err := decode(m.Data, &img); err != nil || img.Format != "jpeg" {
				t.Fatalf("frame %d: %v (format %q)", m.Sequence, err, img.Format)
			}
			stamps = append(stamps, img.Header.Stamp.Time())
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, md := range r.Metadata() {
		if md.Name == clip.MetadataName {
			meta = md.Metadata
		}
	}
	return stamps, perTopic, meta
}
