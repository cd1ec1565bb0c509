package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip"
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
	r := startClipRun(t, "{enabled: true, pre: 5s, post: 2s, on_states: [carry]}")
	a, err := RequestClip(r.ctx, r.addr, "operator saw a slip", 20*time.Second)
	if err != nil || !a.Written || a.Frames == 0 || a.Lost != 0 {
		t.Fatalf("POST /clip: %+v, %v", a, err)
	}
	if _, err := RequestClip(r.ctx, r.addr, "again", 0); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("a second request within min_interval: %v", err)
	}
	ep := r.closedEpisode(t, 2)
	checkStateClip(t, ep, r.bag)
	checkClipMetrics(t, "http://"+r.addr)
	r.stop(t)
}

// TestSnapshotServiceWritesAClip: rospy calls the live daemon's
// ~snapshot (std_srvs/Trigger) while the bag plays: success, the clip's
// name in the message, and that clip written in the episode; a second
// call within min_interval answers success false saying why.
func TestSnapshotServiceWritesAClip(t *testing.T) {
	rostest.RequireRospy(t)
	r := startClipRun(t, "{enabled: true, pre: 5s, post: 2s}")
	call := func() string {
		p := r.m.Python("testdata/snapshot_client.py", "/edged/snapshot")
		if err := p.Wait(40 * time.Second); err != nil {
			t.Fatalf("calling /edged/snapshot: %v\n%s", err, p.Output())
		}
		return p.Output()
	}
	out := call()
	m := regexp.MustCompile(`success=True message=clip (\S+) of episode`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("~snapshot answered:\n%s", out)
	}
	if again := call(); !strings.Contains(again, "success=False") || !strings.Contains(again, clip.SkipRateLimit) {
		t.Errorf("a second ~snapshot within min_interval answered:\n%s", again)
	}
	ep := r.closedEpisode(t, 1)
	if ep.Clips[0].Name != m[1] || ep.Clips[0].Bytes == 0 {
		t.Errorf("clips written %+v, ~snapshot named %s", ep.Clips, m[1])
	}
	r.stop(t)
}

// clipRun is a live daemon with clips (section clips) and the sim bag
// played into a real rosmaster, its episode open.
type clipRun struct {
	d *Daemon
	*daemonRun
	m        *rostest.Master
	play     *rostest.Proc
	tmp, bag string
	addr     string
}

// requestWrittenClip asks r for a clip (POST /clip) until its episode
// is known to the clip stage, and waits until it is written.
func requestWrittenClip(t *testing.T, r *clipRun) ClipAnswer {
	t.Helper()
	var a ClipAnswer
	var err error
	rostest.WaitFor(t, 30*time.Second, "a clip written on request", func() bool {
		a, err = RequestClip(r.ctx, r.addr, "operator request", 20*time.Second)
		return a.Skipped != clip.SkipNoEpisode // the clip stage hears of the episode after the status page
	})
	if err != nil || !a.Written || filepath.Base(a.Path) != a.Name {
		t.Fatalf("POST /clip: %+v, %v", a, err)
	}
	return a
}

func startClipRun(t *testing.T, clips string) *clipRun {
	t.Helper()
	return startClipRunWith(t, clips, "")
}

// startClipRunWith is startClipRun with more of the config (YAML lines
// appended: an uplink...).
func startClipRunWith(t *testing.T, clips, more string) *clipRun {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test with rosmaster and rosbag play; skipped with -short")
	}
	rostest.Require(t, "rosmaster", "rosbag")
	r := &clipRun{tmp: t.TempDir()}
	r.bag, _ = pipelinetest.SimBag(t, r.tmp)
	r.m = rostest.StartMaster(t)
	if err := r.m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	port := rostest.FreePort(t)
	cfg := parseConfig(t, fmt.Sprintf(`
robot_id: sim-01
data_dir: %s
ros: {master_uri: %q, host: 127.0.0.1, queue_size: 300}
cameras: [{topic: %s, name: top}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
http: {listen: "127.0.0.1:%d"}
clips: %s
%s
`, filepath.Join(r.tmp, "data"), r.m.URI, simCamera, port, clips, more))
	r.d, r.daemonRun = runDaemon(t, cfg, Options{Version: "test"})
	rostest.WaitFor(t, 20*time.Second, "edged capture running", func() bool { return r.d.capt.Load() != nil })
	r.play = rostest.Start(t, r.m.Env(), "rosbag", "play", "--clock", "-d", "1", "--quiet", r.bag)
	r.addr = fmt.Sprintf("127.0.0.1:%d", port)
	rostest.WaitFor(t, 30*time.Second, "an episode open", func() bool { return r.d.pipe.Status().EpisodeOpen() })
	return r
}

// closedEpisode waits for the bag's end and its one episode closed with
// n clips.
func (r *clipRun) closedEpisode(t *testing.T, n int) *episode.Episode {
	t.Helper()
	if err := r.play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v\n%s", err, r.play.Output())
	}
	store := filepath.Join(r.tmp, "data", "episodes")
	var ep *episode.Episode
	rostest.WaitFor(t, 20*time.Second, fmt.Sprintf("the episode closed with %d clips", n), func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 || !ms[0].Closed {
			return false
		}
		ep, err = episode.Load(store, ms[0].ID)
		return err == nil && len(ep.Clips) == n
	})
	return ep
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
