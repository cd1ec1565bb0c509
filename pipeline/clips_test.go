package pipeline_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
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
	want := pipelinetest.BagFrames(t, bagPath, simCamera, from, to)
	path := filepath.Join(episode.ClipDir(ep.Dir), ep.Clips[0].Name)
	got, perTopic, meta := pipelinetest.ReadClip(t, path, simCamera)
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
	pipelinetest.CheckClipWithMcapCore(t, path, simCamera, perTopic)
}

// TestReplayClipsAnInterruptedEpisode: an episode cut at
// episode.max_duration (interrupted) gets a clip of its last seconds
// when on_failure_outcome is on, and none when it is off.
func TestReplayClipsAnInterruptedEpisode(t *testing.T) {
	tmp := t.TempDir()
	bagPath, _ := pipelinetest.SimBag(t, tmp)
	for _, tc := range []struct {
		name  string
		on    bool
		clips int
	}{{"on", true, 1}, {"off", false, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: sim-01
cameras: [{topic: %s, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
episode: {max_duration: 8s}
clips: {enabled: true, pre: 3s, post: 0s, on_failure_outcome: %v}
`, simCamera, tc.on)))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, tc.name)
			pipelinetest.ReplayBag(t, cfg, out, bagPath)
			store := filepath.Join(out, episode.EpisodesDir)
			eps, err := episode.List(store)
			if err != nil || len(eps) == 0 || eps[0].EndReason != episode.EndMaxDuration {
				t.Fatalf("episodes %+v, %v", eps, err)
			}
			ep, err := episode.Load(store, eps[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(ep.Clips) != tc.clips {
				t.Fatalf("clips %+v, want %d", ep.Clips, tc.clips)
			}
			if tc.clips == 0 {
				return
			}
			if want := episode.ClipName(ep.Manifest.End, string(clip.KindOutcome)); ep.Clips[0].Name != want {
				t.Errorf("clip %s, want %s", ep.Clips[0].Name, want)
			}
			got, _, meta := pipelinetest.ReadClip(t, filepath.Join(episode.ClipDir(ep.Dir), ep.Clips[0].Name), simCamera)
			want := pipelinetest.BagFrames(t, bagPath, simCamera, ep.Manifest.End.Add(-3*time.Second), ep.Manifest.End)
			if len(got) != len(want) || meta["reason"] != "episode interrupted (max_duration)" {
				t.Errorf("%d frames, the bag's window %d; metadata %v", len(got), len(want), meta)
			}
		})
	}
}

// TestReplayClipsAnUnsatCheck: a trace check judged UNSAT when the
// replayed episode closes gets a clip of its last seconds, named after
// the check, when on_unsat is on; none when it is off or every check
// holds.
func TestReplayClipsAnUnsatCheck(t *testing.T) {
	tmp := t.TempDir()
	bagPath, _ := pipelinetest.SimBag(t, tmp)
	for _, tc := range []struct {
		name, formula string
		on            bool
		clips         int
	}{
		{"unsat on", "tr.Exists(no_such_state)", true, 1},
		{"unsat off", "tr.Exists(no_such_state)", false, 0},
		{"sat on", "tr.Exists(carry)", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: sim-01
cameras: [{topic: %s, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
checks: {rules: {checks: [{name: the_check, formula: '%s'}]}}
clips: {enabled: true, pre: 3s, post: 0s, on_failure_outcome: false, on_unsat: %v}
`, simCamera, tc.formula, tc.on)))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, tc.name)
			pipelinetest.ReplayBag(t, cfg, out, bagPath)
			store := filepath.Join(out, episode.EpisodesDir)
			eps, err := episode.List(store)
			if err != nil || len(eps) != 1 || len(eps[0].Verdicts) != 1 {
				t.Fatalf("episodes %+v, %v", eps, err)
			}
			ep, err := episode.Load(store, eps[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(ep.Clips) != tc.clips {
				t.Fatalf("clips %+v, want %d (verdicts %+v)", ep.Clips, tc.clips, eps[0].Verdicts)
			}
			if tc.clips == 0 {
				return
			}
			if want := episode.ClipName(ep.Manifest.End, string(clip.KindUnsat)); ep.Clips[0].Name != want {
				t.Errorf("clip %s, want %s", ep.Clips[0].Name, want)
			}
			got, _, meta := pipelinetest.ReadClip(t, filepath.Join(episode.ClipDir(ep.Dir), ep.Clips[0].Name), simCamera)
			want := pipelinetest.BagFrames(t, bagPath, simCamera, ep.Manifest.End.Add(-3*time.Second), ep.Manifest.End)
			if len(got) != len(want) || len(want) == 0 || meta["trigger"] != string(clip.KindUnsat) || meta["reason"] != "UNSAT: the_check" {
				t.Errorf("clip: %d frames, the bag's window %d; metadata %v", len(got), len(want), meta)
			}
		})
	}
}
