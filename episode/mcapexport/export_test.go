package mcapexport

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/uplink/wire"
)

const cam = "camera_color"

var t0 = episodetest.T0

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// storedEpisode writes a closed episode of two segments through the
// store, with two contact sheets, a labeling sheet per segment, a
// snippet of three samples and one that does not decode, and an
// annotation; it returns the store (episodes/) and the episode's id.
func storedEpisode(t *testing.T) (blob.Blobs, string) {
	t.Helper()
	root := t.TempDir()
	s, err := epstore.Open(root, epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin(epstore.Begin{Robot: "arm-01", Start: t0, Instruction: "pick and place"})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range []struct {
		label      string
		start, end float64
	}{{"reach", 0, 8}, {"grasp", 8, 20}} {
		if err := w.Transition(episode.Transition{Seq: i, Stamp: at(g.start), Sec: g.start, Kind: episode.TransitionState,
			Source: "/task/state", To: g.label, Opens: g.label}); err != nil {
			t.Fatal(err)
		}
		if err := w.Segment(episode.Segment{Index: i, Start: at(g.start), End: at(g.end), StartSec: g.start, EndSec: g.end,
			Label: g.label, Source: "/task/state", Kind: "string", Outcome: episode.Completed}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(at(20), episode.Completed, episode.EndIdle); err != nil {
		t.Fatal(err)
	}
	dir := w.Dir()
	jpeg := []byte{0xff, 0xd8, 1, 2, 3, 0xff, 0xd9}
	for i := 1; i <= 2; i++ {
		name := filepath.Join(dir, episode.SheetsDir, cam, episode.SheetName(i))
		episodetest.Put(t, name+".jpg", jpeg)
		episodetest.Put(t, name+".json", episodetest.SheetJSON(1120, 672, 516, (i-1)*20, 20))
	}
	for i := range 2 {
		name := filepath.Join(dir, episode.LabelsDir, cam, episode.LabelName(i))
		episodetest.Put(t, name+".jpg", jpeg)
		episodetest.Put(t, name+".json", fmt.Appendf(nil, `{"segment":{"index":%d}}`, i))
	}
	snip := &wire.Snippet{Episode: filepath.Base(dir), Camera: cam, SheetIndex: 1, Names: []string{"j1", "j2"}}
	for k := range 3 {
		snip.Samples = append(snip.Samples, wire.JointSample{Tick: int64(k), Stamp: at(float64(k) / 2).UnixNano(),
			Position: []float64{float64(k), 1}, Velocity: []float64{0, 0}, Effort: []float64{0, 0}})
	}
	body, err := wire.EncodeSnippet(snip)
	if err != nil {
		t.Fatal(err)
	}
	episodetest.Put(t, filepath.Join(dir, episode.SnippetsDir, cam, episode.SheetName(1)+episode.SnippetExt), body)
	episodetest.Put(t, filepath.Join(dir, episode.SnippetsDir, cam, episode.SheetName(2)+episode.SnippetExt), []byte("not zstd"))
	store := blob.Dir{Root: root}
	ann := episode.Annotation{Model: "m", Prompt: "p1", Segments: []episode.AnnotatedSegment{{StartSec: 0, EndSec: 9, Subtask: "reach"}, {StartSec: 9, EndSec: 20, Subtask: "grasp"}}}
	if err := episode.PutAnnotation(store, filepath.Base(dir), "m-p1", ann); err != nil {
		t.Fatal(err)
	}
	return store, filepath.Base(dir)
}

// TestWriteReadsBack: every file of the episode is a message on its
// channel (counted by edged's reader and by Foxglove's @mcap/core), at
// its time, decoding as its schema; the file that does not decode is
// named, not dropped silently.
func TestWriteReadsBack(t *testing.T) {
	store, id := storedEpisode(t)
	e, err := episode.LoadBlobs(store, id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := Write(&buf, e, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], episode.SheetName(2)+episode.SnippetExt) {
		t.Errorf("problems %q: want the snippet that does not decode named", res.Problems)
	}
	want := map[string]int{
		TopicSheetsPrefix + cam: 2, TopicLabelsPrefix + cam: 2, TopicSnippetsPrefix + cam: 3,
		clip.TopicSegments: 2, clip.TopicTransitions: 2, TopicTimeline: 4,
	}
	if !maps.Equal(res.Messages, want) {
		t.Errorf("Result.Messages %v, want %v", res.Messages, want)
	}
	path := filepath.Join(t.TempDir(), "episode.mcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, times := readBack(t, path, id)
	if !maps.Equal(got, want) {
		t.Errorf("edged's reader counts %v, want %v", got, want)
	}
	if ts := times[TopicSheetsPrefix+cam]; !slices.Equal(ts, []time.Time{at(0), at(10)}) {
		t.Errorf("contact sheets at %v: want their first tiles' times", ts)
	}
	if ts := times[TopicLabelsPrefix+cam]; !slices.Equal(ts, []time.Time{at(0), at(8)}) {
		t.Errorf("labeling sheets at %v: want their segments' starts", ts)
	}
	v := mcaptest.Read(t, buf.Bytes())
	for topic, n := range want {
		if v.Indexed.ByTopic[topic] != n {
			t.Errorf("@mcap/core: %s has %d messages, want %d", topic, v.Indexed.ByTopic[topic], n)
		}
	}
	if len(v.Indexed.Metadata) != 1 || v.Indexed.Metadata[0].Name != MetadataName || v.Indexed.Metadata[0].Metadata["episode"] != id {
		t.Errorf("@mcap/core: metadata %+v: want one %s naming %s", v.Indexed.Metadata, MetadataName, id)
	}
}

// readBack reads path with bag/mcap: messages and their log times per
// topic, every ROS message decoded by ros/msg, every channel naming id.
func readBack(t *testing.T, path, id string) (map[string]int, map[string][]time.Time) {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if p := r.Info().Problems; !r.Info().Indexed || len(p) > 0 {
		t.Errorf("indexed %v, problems %v", r.Info().Indexed, p)
	}
	for _, c := range r.Channels() {
		if c.Metadata["episode"] != id {
			t.Errorf("channel %s metadata %v does not name the episode", c.Topic, c.Metadata)
		}
	}
	counts, times := map[string]int{}, map[string][]time.Time{}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		topic := m.Channel.Topic
		counts[topic]++
		times[topic] = append(times[topic], time.Unix(0, int64(m.LogTime)).UTC())
		switch m.Channel.Schema.Name {
		case msg.TypeCompressedImage:
			var img msg.CompressedImage
			if err := msg.DecodeCompressedImage(m.Data, &img); err != nil || img.Format != "jpeg" {
				t.Errorf("%s: %v, format %q", topic, err, img.Format)
			}
		case msg.TypeJointState:
			var js msg.JointState
			if err := msg.DecodeJointState(m.Data, &js); err != nil || len(js.Position) != 2 {
				t.Errorf("%s: %v, %+v", topic, err, js)
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return counts, times
}
