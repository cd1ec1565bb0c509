package daemon

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRunClipsFailedGoals: live, with clips.on_goal_failure, an
// actionlib goal that ends ABORTED and one that ends REJECTED each get a
// goal clip at their segment's end, in their episode; a goal that
// succeeds gets none.
func TestRunClipsFailedGoals(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster; skipped with -short")
	}
	m := rostest.StartMaster(t)
	status := startTopicPub(t, m, "/pick_server", "/pick/status", msg.TypeGoalStatusArray, rostest.GoalStatusArrayDef)
	setStatus := publishStatus(t, status)
	dir := t.TempDir()
	store := filepath.Join(dir, "data", episode.EpisodesDir)
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\n"+
		"http: {listen: \"off\"}\njoints: [{topic: /joint_states}]\nfsm: [{topic: /pick/status, type: actionlib}]\n"+
		"clips: {enabled: true, pre: 2s, post: 0s, min_interval: 0s, on_failure_outcome: false, on_goal_failure: true}\n",
		filepath.Join(dir, "data"), m.URI))
	_, run := runDaemon(t, cfg, Options{})
	rostest.WaitFor(t, 60*time.Second, "edged subscribed to /pick/status", func() bool { return status.subscribers() > 0 })

	// Each goal goes ACTIVE, then to its end; each step waits for edged
	// to have recorded the previous one.
	var done []goalStatus
	for i, end := range []uint8{msg.GoalAborted, msg.GoalRejected, msg.GoalSucceeded} {
		g := goalStatus{fmt.Sprintf("g%d", i+1), msg.GoalActive}
		setStatus(append(slices.Clone(done), g)...)
		rostest.WaitFor(t, 30*time.Second, g.id+" opened", func() bool { return goalState(store, g.id) == "open" })
		g.status = end
		done = append(done, g)
		setStatus(done...)
		rostest.WaitFor(t, 30*time.Second, g.id+" closed", func() bool { return goalState(store, g.id) == "closed" })
	}
	var segs []episode.Segment
	var clips []string
	rostest.WaitFor(t, 40*time.Second, "two goal clips written", func() bool {
		segs, clips = goalSegmentsAndClips(store)
		return len(clips) >= 2
	})
	var want []string
	for _, s := range segs {
		if s.Kind == fsmkind.Actionlib && s.Outcome == episode.Aborted {
			want = append(want, episode.ClipName(s.End, string(clip.KindGoal)))
		}
	}
	slices.Sort(want)
	slices.Sort(clips)
	if len(want) != 2 || !slices.Equal(clips, want) {
		t.Errorf("clips %q, want %q (segments %+v)", clips, want, segs)
	}
	run.stop(t)
}

// goalState is "open" when a segment of goal id was opened, "closed"
// when it closed, else "".
func goalState(store, id string) string {
	ms, err := episode.List(store)
	if err != nil {
		return ""
	}
	state := ""
	for _, mf := range ms {
		e, err := episode.Load(store, mf.ID)
		if err != nil {
			continue
		}
		for _, s := range e.Segments {
			if s.GoalID == id {
				return "closed"
			}
		}
		for _, tr := range e.Transitions {
			if tr.Opens != "" && tr.GoalID == id {
				state = "open"
			}
		}
	}
	return state
}

// goalSegmentsAndClips are every episode's segments and clips.
func goalSegmentsAndClips(store string) (segs []episode.Segment, clips []string) {
	ms, _ := episode.List(store)
	for _, mf := range ms {
		e, err := episode.Load(store, mf.ID)
		if err != nil {
			continue
		}
		segs = append(segs, e.Segments...)
		for _, c := range e.Clips {
			clips = append(clips, c.Name)
		}
	}
	return segs, clips
}
