package pipelinetest

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/cliptest"
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/ros/msg"
)

// CheckClipWithMcapCore: Foxglove's reader opens the clip through its
// summary and indexes, CRCs matching, and finds every message per topic
// that edged's reader found, the camera's with its ROS1 or ROS 2 schema;
// Foxglove's deserializers decode every message with its channel's
// schema, the first of each topic to what edged's reader decoded
// (cliptest.CheckFoxgloveDecodes).
func CheckClipWithMcapCore(t *testing.T, path, camera string, perTopic map[string]int) {
	t.Helper()
	v := mcaptest.ReadFile(t, path)
	cliptest.CheckFoxgloveDecodes(t, cliptest.Read(t, path, camera), v)
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
		if err := cliptest.CheckCameraSchema(s.Name, s.Encoding, c.MessageEncoding, s.Data); err != nil {
			t.Errorf("@mcap/core: camera channel %+v: %v", c, err)
		}
	}
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

// ReadClip reads a clip (cliptest.Read): the header stamps of camera's
// frames, the messages per topic, the clip's metadata record.
func ReadClip(t *testing.T, path, camera string) (stamps []time.Time, perTopic map[string]int, meta map[string]string) {
	t.Helper()
	c := cliptest.Read(t, path, camera)
	return c.Stamps, c.PerTopic, c.Metadata[clip.MetadataName]
}

// SimCamera is the camera topic of the generated bag (SimBag).
const SimCamera = "/camera/color/image_raw/compressed"

// SimClip replays the generated bag (SimBag) with clips on the FSM
// entering "carry" (pre 5 s, post 2 s), as the clip stage writes them,
// and returns the bag and the one clip written.
func SimClip(t *testing.T, dir string) (bagPath, clipPath string) {
	t.Helper()
	bagPath, _ = SimBag(t, dir)
	cfg, err := config.Parse([]byte(`
robot_id: sim-01
cameras: [{topic: ` + SimCamera + `, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
clips: {enabled: true, pre: 5s, post: 2s, on_states: [carry]}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "clip-out")
	ReplayBag(t, cfg, out, bagPath)
	return bagPath, OnlyClip(t, out)
}

// OnlyClip is the path of the one clip of the one episode of the store
// a replay wrote under out; it fails the test unless there is exactly
// one of each.
func OnlyClip(t *testing.T, out string) string {
	t.Helper()
	store := filepath.Join(out, episode.EpisodesDir)
	eps, err := episode.List(store)
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v, %v", eps, err)
	}
	ep, err := episode.Load(store, eps[0].ID)
	if err != nil || len(ep.Clips) != 1 {
		t.Fatalf("clips %+v, %v; want one", ep.Clips, err)
	}
	return filepath.Join(episode.ClipDir(ep.Dir), ep.Clips[0].Name)
}

// ClipFSM reads a clip's FSM part: its transitions and segments (JSON
// in the episode format), in the clip's order.
func ClipFSM(t *testing.T, path string) (trans []episode.Transition, segs []episode.Segment) {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(clip.TopicTransitions, clip.TopicSegments)
	defer it.Close()
	for it.Next() {
		m := it.Message()
		var v any = &episode.Segment{}
		if m.Channel.Topic == clip.TopicTransitions {
			v = &episode.Transition{}
		}
		if err := json.Unmarshal(m.Data, v); err != nil {
			t.Fatalf("%s message %d: %v", m.Channel.Topic, m.Sequence, err)
		}
		switch v := v.(type) {
		case *episode.Transition:
			trans = append(trans, *v)
		case *episode.Segment:
			segs = append(segs, *v)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return trans, segs
}
