// Package cliptest reads an incident clip (package clip) back for the
// tests of clip, pipeline, daemon and replay: one reader of a clip's
// file, low enough (bag/mcap, ros/msg) for clip's own tests to import.
// Tests only; no state, no goroutines.
package cliptest

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/ros/msg"
)

// Clip is what Read found in a clip.
type Clip struct {
	Stamps   []time.Time                  // header stamps of the camera's frames, in order
	PerTopic map[string]int               // messages per topic
	Metadata map[string]map[string]string // Metadata records by name (clip.MetadataName)
}

// Read reads a clip with edged's MCAP reader: indexed with its CRCs
// checked (unless it holds no message), every channel naming its
// episode and with its schema, camera's frames JPEG CompressedImages
// decoding as their schema says. It fails the test otherwise.
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
	c := Clip{PerTopic: map[string]int{}, Metadata: map[string]map[string]string{}}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		c.PerTopic[m.Channel.Topic]++
		if m.Channel.Metadata["episode"] == "" || m.Channel.Schema == nil {
			t.Fatalf("channel %s: metadata %v, schema %v", m.Channel.Topic, m.Channel.Metadata, m.Channel.Schema)
		}
		if m.Channel.Topic == camera {
			var img msg.CompressedImage
			if err := msg.DecodeCompressedImage(m.Data, &img); err != nil || img.Format != "jpeg" {
				t.Fatalf("frame %d does not decode as its schema says: %v (format %q)", m.Sequence, err, img.Format)
			}
			c.Stamps = append(c.Stamps, img.Header.Stamp.Time())
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
