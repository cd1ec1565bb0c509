package clip

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// newRing is a ring holding at most frames frames.
func newRing(t testing.TB, frames int) *ringbuf.Ring {
	t.Helper()
	r, err := ringbuf.New(ringbuf.Config{MaxBytes: ringbuf.MinBytes, MaxAge: time.Hour, MaxFrames: frames})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

var frameSeed uint64 // each frame's bytes differ (tests of this package run one at a time)

// putJPEG puts a compressed frame of size bytes stamped at.
func putJPEG(t testing.TB, r *ringbuf.Ring, at time.Time, size int) {
	t.Helper()
	data := make([]byte, size)
	frameSeed++
	rng := rand.New(rand.NewPCG(frameSeed, 1))
	for i := range data { // incompressible, as JPEG is
		data[i] = byte(rng.Uint32())
	}
	f := capture.Frame{Topic: "/cam", Stamp: at, Received: at, Format: capture.FormatJPEG, Encoding: "jpeg", Data: data}
	if err := r.Put(&f); err != nil {
		t.Fatal(err)
	}
}

// stageFor is a synchronous stage over cams with an episode begun in a
// store under dir.
func stageFor(t testing.TB, cfg policy.Config, dir string, cams ...Camera) *Stage {
	t.Helper()
	return stageOf(t, cfg, dir, false, cams...)
}

// stageOf is stageFor writing ROS 2 messages when ros2.
func stageOf(t testing.TB, cfg policy.Config, dir string, ros2 bool, cams ...Camera) *Stage {
	t.Helper()
	cfg.Enabled = true
	s, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), StoreDir: dir, Sync: true,
		Cameras: func() []Camera { return cams }, ROS2: ros2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.History().EpisodeBegan(Episode{ID: "arm-01-ep", Dir: filepath.Join(dir, "arm-01-ep")})
	return s
}

// readClip reads a clip with edged's MCAP reader: messages per topic,
// the CompressedImage stamps of topic cam, and the clip's metadata.
// Every ROS message decodes with its channel's schema (ros1msg through
// ros/msg, ros2msg through ros2/cdr).
func readClip(t *testing.T, path, cam string) (perTopic map[string]int, stamps []time.Time, meta map[string]string) {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{VerifyDataCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if info := r.Info(); info.Messages > 0 && !info.Indexed || len(info.Problems) > 0 {
		t.Fatalf("clip not indexed or damaged: %+v", info)
	}
	perTopic = map[string]int{}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		perTopic[m.Channel.Topic]++
		v := decodeWithSchema(t, m)
		if m.Channel.Topic == cam {
			stamps = append(stamps, stampOf(t, v))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, md := range r.Metadata() {
		if md.Name == MetadataName {
			meta = md.Metadata
		}
	}
	return perTopic, stamps, meta
}

// decodeWithSchema decodes a ROS message of a clip with its channel's
// schema (nil for edged's JSON channels).
func decodeWithSchema(t *testing.T, m mcap.Message) *msg.Value {
	t.Helper()
	sc := m.Channel.Schema
	var v *msg.Value
	var err error
	switch {
	case sc == nil:
		t.Fatalf("channel %s without a schema", m.Channel.Topic)
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

// stampOf is the header stamp of a decoded ROS1 or ROS 2 message.
func stampOf(t *testing.T, v *msg.Value) time.Time {
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
