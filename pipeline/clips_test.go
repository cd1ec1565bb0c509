package pipeline_test

import (
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
