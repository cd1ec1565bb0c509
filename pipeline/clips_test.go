package pipeline_test

import (
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
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/ros/msg"
)

const simCamera = "/camera/color/image_raw/compressed"

// TestReplayWritesAClip: replaying the generated episode with clips on
// the FSM entering "carry" writes one clip into the episode: every
// camera frame of the bag stamped in the window (counted against the
// bag), decoding as its schema says, the joints of the window, the
// transition that triggered it, and a Metadata record naming the
// episode and the trigger; edged inspect's reader lists it.
func TestReplayWritesAClip(t *testing.T) {
	tmp := t.TempDir()
	bagPath, _ := pipelinetest.SimBag(t, tmp)
	cfg, err := config.Parse([]byte(`
robot_id: sim-01
cameras: [{topic: ` + simCamera + `, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
clips: {enabled: true, pre: 5s, post: 2s, on_states: [carry]}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	pipelinetest.ReplayBag(t, cfg, out, bagPath)
	eps, err := episode.List(filepath.Join(out, episode.EpisodesDir))
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v, %v", eps, err)
	}
	ep, err := episode.Load(filepath.Join(out, episode.EpisodesDir), eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.Clips) != 1 {
		t.Fatalf("clips %+v, want one", ep.Clips)
	}
	var carry time.Time
	for _, tr := range ep.Transitions {
		if tr.Kind == episode.TransitionState && tr.To == "carry" {
			carry = tr.Stamp
		}
	}
	from, to := carry.Add(-5*time.Second), carry.Add(2*time.Second)
	want := bagFrames(t, bagPath, from, to)
	path := filepath.Join(episode.ClipDir(ep.Dir), ep.Clips[0].Name)
	got, perTopic, meta := clipFrames(t, path)
	if len(got) != len(want) || len(want) < 100 {
		t.Fatalf("%d frames in the clip, %d in the bag's window", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("frame %d stamped %v, the bag's %v", i, got[i], want[i])
		}
	}
	if perTopic["/joint_states"] < 600 || perTopic[clip.TopicTransitions] < 1 || perTopic[clip.TopicSegments] < 3 {
		t.Errorf("messages per topic %v", perTopic)
	}
	if meta["episode"] != ep.Manifest.ID || meta["trigger"] != string(clip.KindState) || meta["reason"] != "entered carry" ||
		meta["lost_frames"] != "0" {
		t.Errorf("metadata %v", meta)
	}
	checkWithMcapCore(t, path, perTopic)
}

// checkWithMcapCore: Foxglove's reader opens the clip through its
// summary and indexes, CRCs matching, and finds every message per topic
// that edged's reader found, the camera's with its ROS1 schema.
func checkWithMcapCore(t *testing.T, path string, perTopic map[string]int) {
	t.Helper()
	v := mcaptest.ReadFile(t, path)
	ix := v.Indexed
	if !ix.DataCrcMatches || len(ix.Compressions) == 0 || ix.Compressions[0] != mcap.CompressionZstd || !v.Stream.Done {
		t.Errorf("@mcap/core: data CRC matches %v, chunks %v, stream done %v", ix.DataCrcMatches, ix.Compressions, v.Stream.Done)
	}
	if !maps.Equal(ix.ByTopic, perTopic) {
		t.Errorf("@mcap/core: messages per topic %v, edged's reader %v", ix.ByTopic, perTopic)
	}
	for _, c := range ix.Channels {
		if c.Topic != simCamera {
			continue
		}
		i := slices.IndexFunc(ix.Schemas, func(s mcaptest.Schema) bool { return s.ID == c.SchemaID })
		if i < 0 {
			t.Fatalf("@mcap/core: camera channel %+v without its schema", c)
		}
		s := ix.Schemas[i]
		if d, err := msg.Parse(s.Name, string(s.Data)); err != nil || s.Encoding != "ros1msg" || c.MessageEncoding != "ros1" ||
			d.MD5() != msg.MD5CompressedImage {
			t.Errorf("@mcap/core: camera channel %+v, schema %s %s: %v", c, s.Name, s.Encoding, err)
		}
	}
}

// bagFrames are the header stamps of the bag's camera frames in [from, to].
func bagFrames(t *testing.T, path string, from, to time.Time) []time.Time {
	t.Helper()
	r, err := bag.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(simCamera)
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

// clipFrames reads a clip with edged's MCAP reader.
func clipFrames(t *testing.T, path string) (stamps []time.Time, perTopic map[string]int, meta map[string]string) {
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
		if m.Channel.Topic == simCamera {
			var img msg.CompressedImage
			if err := msg.DecodeCompressedImage(m.Data, &img); err != nil || img.Format != "jpeg" {
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
