package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/mcapexport"
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/uplink/wire"
)

// TestExportMCAPOfSinkEpisode: an episode replayed and shipped to the
// sink, exported with --format mcap, holds every file the sink wrote as
// a message of its channel (sheets, labeling sheets, each snippet's
// samples as joint states), its segments and transitions, as edged's
// reader and Foxglove's @mcap/core count them.
func TestExportMCAPOfSinkEpisode(t *testing.T) {
	tmp := t.TempDir()
	sinkOut, sink, ep := replayToSink(t, tmp)
	defer sink.Stop(10 * time.Second)
	file := filepath.Join(tmp, "episode.mcap")
	if out, errOut, err := edgedWithin(t, nil, 30*time.Second, "export", "--dir", sinkOut, "--format", "mcap", "-o", file, ep.Manifest.ID); err != nil {
		t.Fatalf("export --format mcap: %v\n%s%s", err, out, errOut)
	}
	want := filesAsMessages(t, filepath.Join(episode.StoreDir(sinkOut), ep.Manifest.ID))
	want[clip.TopicSegments], want[clip.TopicTransitions] = len(ep.Segments), len(ep.Transitions)
	// segments, transitions, sheets, snippets (labeling sheets stay on the robot)
	if want[mcapexport.TopicSnippetsPrefix+"camera_color_image_raw_compressed"] == 0 || len(want) < 4 {
		t.Fatalf("the sink's episode lacks sheets or snippets: %v", want)
	}
	got := countByTopic(t, file)
	for topic, n := range want {
		if got[topic] != n {
			t.Errorf("%s: %d messages, want %d (the episode's files)", topic, got[topic], n)
		}
	}
	v := mcaptest.ReadFile(t, file)
	for topic, n := range want {
		if v.Indexed.ByTopic[topic] != n {
			t.Errorf("@mcap/core: %s has %d messages, want %d", topic, v.Indexed.ByTopic[topic], n)
		}
	}
}

// filesAsMessages counts what an episode directory should export: a
// message per sheet and labeling sheet, one per snippet sample.
func filesAsMessages(t *testing.T, dir string) map[string]int {
	t.Helper()
	want := map[string]int{}
	for _, k := range []struct{ kind, topic string }{
		{episode.SheetsDir, mcapexport.TopicSheetsPrefix}, {episode.LabelsDir, mcapexport.TopicLabelsPrefix},
	} {
		jpegs, _ := filepath.Glob(filepath.Join(dir, k.kind, "*", "*.jpg"))
		for _, p := range jpegs {
			want[k.topic+filepath.Base(filepath.Dir(p))]++
		}
	}
	snips, _ := filepath.Glob(filepath.Join(dir, episode.SnippetsDir, "*", "*"+episode.SnippetExt))
	for _, p := range snips {
		b, err := os.ReadFile(p)
		must(t, err)
		s, err := wire.DecodeSnippet(b)
		must(t, err)
		want[mcapexport.TopicSnippetsPrefix+filepath.Base(filepath.Dir(p))] += len(s.Samples)
	}
	return want
}

// countByTopic counts the messages of an MCAP file per topic with
// edged's reader.
func countByTopic(t *testing.T, file string) map[string]int {
	t.Helper()
	r, err := mcap.Open(file, mcap.Options{})
	must(t, err)
	defer r.Close()
	got := map[string]int{}
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		got[it.Message().Channel.Topic]++
	}
	must(t, it.Err())
	return got
}

// TestExportMCAPFromObjectStore: an episode of an s3:// store exports
// as MCAP, read where it is; its sheet without metadata (the helper
// writes none) is named as left out; without -o the export is refused.
func TestExportMCAPFromObjectStore(t *testing.T) {
	srv := s3test.Start(t)
	ids := uploadEpisodes(t, srv, "fleet", 1)
	env := os.Environ()
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	file := filepath.Join(t.TempDir(), "episode.mcap")
	if _, errOut, err := edgedWithin(t, env, time.Minute, "export", "--dir", srv.URL("fleet"), "--format", "mcap", ids[0]); err == nil || !strings.Contains(errOut, "-o FILE") {
		t.Errorf("export --format mcap to stdout: %v, %s: want a refusal asking for -o", err, errOut)
	}
	_, errOut, err := edgedWithin(t, env, time.Minute, "export", "--dir", srv.URL("fleet"), "--format", "mcap", "-o", file, ids[0])
	if err != nil {
		t.Fatalf("export --format mcap from %s: %v\n%s", srv.URL("fleet"), err, errOut)
	}
	if !strings.Contains(errOut, "warning: sheets/camera_image_compressed/sheet-0001.jpg") {
		t.Errorf("the sheet without metadata is not named as left out:\n%s", errOut)
	}
	got := countByTopic(t, file)
	want := map[string]int{mcapexport.TopicSheetsPrefix + "camera_image_compressed": 0, clip.TopicSegments: 1, mcapexport.TopicTimeline: 1}
	for topic, n := range want {
		if got[topic] != n {
			t.Errorf("%s: %d messages, want %d (%v)", topic, got[topic], n, got)
		}
	}
}
