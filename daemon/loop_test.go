package daemon

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/rostest"
)

// loopBag writes a 4 s bag of a String FSM: IDLE, REACH (0.5-1.5 s),
// GRASP (1.5-2.5 s), IDLE, at 20 Hz.
const loopBag = `
import sys, rosbag, rospy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], "w") as b:
    for i in range(80):
        t = i / 20.0
        s = "REACH" if 0.5 <= t < 1.5 else "GRASP" if 1.5 <= t < 2.5 else "IDLE"
        b.write("/task/state", String(data=s), rospy.Time(1000) + rospy.Duration(t))
`

// TestLoopedBagUnderSimTime: rosbag play --clock --loop under
// /use_sim_time gives one correct episode per loop (issue 11: every loop
// after the first gave 0-second episodes at the bag's end time).
func TestLoopedBagUnderSimTime(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rosbag play; skipped with -short")
	}
	rostest.Require(t, "rosmaster", "rosbag")
	rostest.RequireRospy(t)
	tmp := t.TempDir()
	bag := filepath.Join(tmp, "loop.bag")
	if out, err := exec.Command(rostest.Python, "-c", loopBag, bag).CombinedOutput(); err != nil {
		t.Fatalf("writing the bag: %v\n%s", err, out)
	}
	m := rostest.StartMaster(t)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(tmp, "data", "episodes")
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\n"+
		"http: {listen: \"off\"}\ncameras: [{topic: /cam}]\njoints: [{topic: /joint_states}]\n"+
		"fsm: [{topic: /task/state, idle_states: [IDLE]}]\n", filepath.Join(tmp, "data"), m.URI))
	d, _ := runDaemon(t, cfg, Options{})
	rostest.WaitFor(t, 20*time.Second, "edged capture running", func() bool { return d.capt.Load() != nil })

	play := rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "--loop", "-d", "1", "--quiet", bag)
	var closed []*episode.Manifest
	rostest.WaitFor(t, 60*time.Second, "three loops recorded", func() bool {
		ms, err := episode.List(store)
		closed = closed[:0]
		for i := range ms {
			if err == nil && ms[i].Closed {
				closed = append(closed, &ms[i])
			}
		}
		return len(closed) >= 3
	})
	play.Kill()
	for _, mf := range closed[:3] {
		ep, err := episode.Load(store, mf.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ep.Segments) != 2 || ep.Segments[0].Label != "REACH" || ep.Segments[1].Label != "GRASP" {
			t.Fatalf("episode %s: segments %+v, want REACH then GRASP", mf.ID, ep.Segments)
		}
		// A String has no header: it is stamped with the /clock time of
		// its arrival, which lags on a loaded machine; the bug this
		// guards against gave 0-second episodes at the bag's end.
		for _, s := range ep.Segments {
			if d := s.EndSec - s.StartSec; math.Abs(d-1) > 0.6 {
				t.Errorf("episode %s: %s lasts %.2f s, want 1 s", mf.ID, s.Label, d)
			}
		}
		if start := mf.Start.Sub(time.Unix(1000, 0)).Seconds(); math.Abs(start-0.5) > 0.6 {
			t.Errorf("episode %s starts at bag time %.2f s, want 0.5 s", mf.ID, start)
		}
	}
}
