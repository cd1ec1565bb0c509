package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/ros/rostest"
)

const simCamera = "/camera/color/image_raw/compressed"

// TestRunWritesClips: a live robot (rosbag play --clock into a real
// rosmaster) whose FSM enters a state of clips.on_states gets a clip
// with every frame published in its window (counted against the bag);
// POST /clip (as edged clip sends it) answers a written clip, a second
// request within min_interval is refused with 429 and counted on
// /metrics.
func TestRunWritesClips(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rosbag play; skipped with -short")
	}
	rostest.Require(t, "rosmaster", "rosbag")
	tmp := t.TempDir()
	bag, _ := pipelinetest.SimBag(t, tmp)
	m := rostest.StartMaster(t)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	port := rostest.FreePort(t)
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: sim-01
data_dir: %s
ros: {master_uri: %q, host: 127.0.0.1, queue_size: 300}
cameras: [{topic: %s, name: top}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
http: {listen: "127.0.0.1:%d"}
clips: {enabled: true, pre: 5s, post: 2s, on_states: [carry]}
`, filepath.Join(tmp, "data"), m.URI, simCamera, port)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- d.Run(ctx) }()
	rostest.WaitFor(t, 20*time.Second, "edged capture running", func() bool { return d.capt.Load() != nil })

	play := rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "-d", "1", "--quiet", bag)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	rostest.WaitFor(t, 30*time.Second, "an episode open", func() bool { return d.pipe.Status().EpisodeOpen() })
	a, err := RequestClip(ctx, addr, "operator saw a slip", 20*time.Second)
	if err != nil || !a.Written || a.Frames == 0 || a.Lost != 0 {
		t.Fatalf("POST /clip: %+v, %v", a, err)
	}
	if _, err := RequestClip(ctx, addr, "again", 0); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("a second request within min_interval: %v", err)
	}
	if err := play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v\n%s", err, play.Output())
	}
	store := filepath.Join(tmp, "data", "episodes")
	var ep *episode.Episode
	rostest.WaitFor(t, 20*time.Second, "the episode closed with two clips", func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 || !ms[0].Closed {
			return false
		}
		ep, err = episode.Load(store, ms[0].ID)
		return err == nil && len(ep.Clips) == 2
	})
	checkStateClip(t, ep, bag)
	checkClipMetrics(t, "http://"+addr)
	cancel()
	if err := <-runErr; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// checkStateClip: the clip of the FSM entering carry holds every frame
// the bag published in its window.
func checkStateClip(t *testing.T, ep *episode.Episode, bag string) {
	t.Helper()
	var carry time.Time
	for _, tr := range ep.Transitions {
		if tr.Kind == episode.TransitionState && tr.To == "carry" {
			carry = tr.Stamp
		}
	}
	name := episode.ClipName(carry, string(clip.KindState))
	got, _, meta := pipelinetest.ReadClip(t, filepath.Join(episode.ClipDir(ep.Dir), name), simCamera)
	want := pipelinetest.BagFrames(t, bag, simCamera, carry.Add(-5*time.Second), carry.Add(2*time.Second))
	if len(got) != len(want) || meta["lost_frames"] != "0" || meta["trigger"] != "state" {
		t.Errorf("clip %s: %d frames, the bag published %d in its window; metadata %v", name, len(got), len(want), meta)
	}
}

func checkClipMetrics(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	if metric(body, "edged_clips_written_total") != 2 || metric(body, `edged_clips_skipped_total{reason="rate_limit"}`) != 1 ||
		metric(body, "edged_clips_bytes_total") <= 0 {
		t.Errorf("clip metrics:\n%s", grepLines(body, "edged_clips"))
	}
}
