package pipeline_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/replay"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestClipAnnouncedToTheSink: a replay that writes a clip, shipping to
// a real mosquitto and sink, announces it: the sink's manifest lists it
// on the robot with its size and checksum (the file's); the uploader's
// hook (ClipUploaded) then moves it to its URL in that manifest.
func TestClipAnnouncedToTheSink(t *testing.T) {
	tmp := t.TempDir()
	bagPath, _ := pipelinetest.SimBag(t, tmp)
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut := filepath.Join(tmp, "sink")
	pipelinetest.StartSink(t, broker.URL, sinkOut)
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: sim-01
data_dir: %s
http: {listen: "off"}
uplink: {broker: %q}
cameras: [{topic: %s, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
clips: {enabled: true, pre: 5s, post: 2s, on_states: [carry]}
`, filepath.Join(tmp, "data"), broker.URL, simCamera)))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r, err := replay.New(cfg, replay.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), []string{bagPath}, nil); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(tmp, "data", episode.EpisodesDir)
	ms, err := episode.List(store)
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes %v, %v", ms, err)
	}
	ep, err := episode.Load(store, ms[0].ID)
	if err != nil || len(ep.Clips) != 1 {
		t.Fatalf("robot's clips %+v, %v", ep.Clips, err)
	}
	name := ep.Clips[0].Name
	b, err := os.ReadFile(filepath.Join(episode.ClipDir(ep.Dir), name))
	if err != nil {
		t.Fatal(err)
	}
	at, _, _ := episode.ParseClipName(name)
	want := episode.ClipEntry{Name: name, Kind: "state", At: at, Bytes: int64(len(b)), SHA256: fmt.Sprintf("%x", sha256.Sum256(b)),
		Where: episode.ClipOnRobot}
	waitSinkClip(t, sinkOut, ep.Manifest.ID, want)

	// The uploader's hook, on a pipeline of the same robot (edged run's).
	p, err := pipeline.New(cfg, pipeline.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Open(); err != nil {
		t.Fatal(err)
	}
	url := "s3://fleet/clips/" + ep.Manifest.ID + "/" + name
	if err := p.ClipUploaded(ep.Manifest.ID, "../"+name, url); err == nil {
		t.Error("a name with a path announced")
	}
	if err := p.ClipUploaded(ep.Manifest.ID, name, url); err != nil {
		t.Fatal(err)
	}
	want.Where = url
	waitSinkClip(t, sinkOut, ep.Manifest.ID, want)
}

// waitSinkClip waits until the sink's manifest of episode id lists
// exactly want.
func waitSinkClip(t *testing.T, sinkOut, id string, want episode.ClipEntry) {
	t.Helper()
	var got []episode.ClipEntry
	rostest.WaitFor(t, 20*time.Second, "the sink's manifest to list "+want.Name+" at "+want.Where, func() bool {
		e, err := episode.Load(episode.StoreDir(sinkOut), id)
		if err != nil {
			return false
		}
		got = e.Manifest.Clips
		return len(got) == 1 && got[0] == want
	})
}
