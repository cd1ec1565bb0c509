//go:build cgo && !purego

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// runROS2 starts edged run (the daemon) with ros.version 2 on a loopback
// domain of the test's own, with the ros2 section's ros2 fields besides
// domain_id ("use_sim_time: true") and config lines extra beside robot_id,
// data_dir, ros and http; it returns the domain, the daemon and its
// episode store. The daemon stops in t.Cleanup.
func runROS2(t *testing.T, ros2, extra string) (domain int, d *Daemon, store string) {
	t.Helper()
	return runROS2OnDomain(t, ddstest.Domain(), ros2, extra)
}

// runROS2OnDomain is runROS2 on a given domain.
func runROS2OnDomain(t *testing.T, domain int, ros2, extra string) (int, *Daemon, string) {
	t.Helper()
	return runROS2Logged(t, domain, ros2, extra, io.Discard)
}

// runROS2Logged is runROS2OnDomain with the daemon's log written to logs.
func runROS2Logged(t *testing.T, domain int, ros2, extra string, logs io.Writer) (int, *Daemon, string) {
	t.Helper()
	return runROS2With(t, domain, ros2, extra, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
}

// runROS2With is runROS2OnDomain with the daemon's Options.
func runROS2With(t *testing.T, domain int, ros2, extra string, opts Options) (int, *Daemon, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test with Cyclone DDS publishers; skipped with -short")
	}
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	data := filepath.Join(t.TempDir(), "data")
	cfg := parseConfig(t, fmt.Sprintf("robot_id: ros2-01\ndata_dir: %s\nros: {version: 2}\nros2: {domain_id: %d, %s}\nhttp: {listen: \"off\"}\n%s",
		data, domain, ros2, extra))
	d, _ := runDaemon(t, cfg, opts)
	return domain, d, filepath.Join(data, "episodes")
}

// waitSegments polls the store until its only episode holds at least n
// segments (open episodes included: segments are written as they close).
func waitSegments(t *testing.T, store string, n int) *episode.Episode {
	t.Helper()
	var ep *episode.Episode
	poll.Until(t, 60*time.Second, fmt.Sprintf("an episode with %d segments", n), func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 {
			return false
		}
		ep, err = episode.Load(store, ms[0].ID)
		return err == nil && len(ep.Segments) >= n
	})
	return ep
}

// TestRunROS2RecordsAnEpisode: edged run with ros.version 2 records one
// episode from a live ROS 2 graph: a std_msgs/String FSM and a
// best-effort sensor_msgs/CompressedImage camera, both C publishers on
// Cyclone DDS with idlc-generated types.
func TestRunROS2RecordsAnEpisode(t *testing.T) {
	tools := ddstest.Build(t)
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 320, 240)), nil); err != nil {
		t.Fatal(err)
	}
	frame := filepath.Join(t.TempDir(), "frame.jpg")
	if err := os.WriteFile(frame, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	domain, d, store := runROS2(t, "", `
cameras: [{topic: /cam/compressed, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
`)
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-b", "-f", frame, "-n", "400", "-p", "25")
	cam.WaitLine(t, "ready")
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "1500", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	ep := waitSegments(t, store, 2)
	if ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v", ep.Segments)
	}
	if st := d.capt.Load().Stats(); len(st) < 2 || st[0].Events == 0 {
		t.Errorf("capture stats %+v: want camera frames", st)
	}
}

// segmentWant is what a test checks of one recorded segment.
type segmentWant struct {
	label, outcome, goalID string
}

// TestRunROS2FSMSources: each FSM source kind, published live over
// Cyclone DDS by a C publisher with idlc-generated types as a ROS 2 node
// on rmw_cyclonedds_cpp would, ends in the segments expected: an action's
// status (action_msgs/GoalStatusArray on <action>/_action/status,
// reliable and transient-local as rclcpp_action publishes it), a field of
// a user message edged does not bundle (its .msg from ros2.msg_dirs), and
// std_msgs/String.
func TestRunROS2FSMSources(t *testing.T) {
	tools := ddstest.Build(t)
	goal := func(b byte) string { // pub's goal B: a UUID of 16 bytes B
		h := strings.Repeat(fmt.Sprintf("%02x", b), 16)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	cases := []struct {
		name   string
		ros2   string   // ros2 fields; MSGDIR is ddstest.MsgDir
		config string   // the fsm section
		pub    []string // pub's arguments
		want   []segmentWant
	}{{
		name:   "action status",
		config: `fsm: [{topic: /navigate/_action/status, type: actionlib}]`,
		// accepted, executing, succeeded; a second goal aborted; the
		// server forgets the first goal's result
		pub: []string{"-t", "/navigate/_action/status", "-k", "goals", "-l", "-D", "1",
			"-v", "1:1,1:2,1:4,1:4+2:1,1:4+2:2,1:4+2:6,2:6,-"},
		want: []segmentWant{{"navigate", episode.Completed, goal(1)}, {"navigate", episode.Aborted, goal(2)}},
	}, {
		name:   "field of a user message",
		ros2:   "msg_dirs: [MSGDIR]",
		config: `fsm: [{topic: /task/status, type: field, field: status.phase, idle_states: [idle]}]`,
		pub:    []string{"-t", "/task/status", "-k", "task", "-v", "idle,reach,grasp,idle,idle"},
		want:   []segmentWant{{"reach", episode.Completed, ""}, {"grasp", episode.Completed, ""}},
	}, {
		name:   "string",
		config: `fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]`,
		pub:    []string{"-t", "/task/state", "-v", "IDLE,reach,grasp,IDLE,IDLE"},
		want:   []segmentWant{{"reach", episode.Completed, ""}, {"grasp", episode.Completed, ""}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			domain, _, store := runROS2(t, strings.ReplaceAll(c.ros2, "MSGDIR", ddstest.MsgDir(t)), c.config)
			samples := len(strings.Split(c.pub[len(c.pub)-1], ",")) // the values, last
			pub := ddstest.Start(t, tools.Pub, domain, append([]string{"-w", "-p", "700", "-n", fmt.Sprint(samples)}, c.pub...)...)
			pub.WaitLine(t, "done")
			ep := waitSegments(t, store, len(c.want))
			var got []segmentWant
			for _, s := range ep.Segments {
				got = append(got, segmentWant{s.Label, s.Outcome, s.GoalID})
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("segments %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestRunROS2SimTime: with ros2.use_sim_time the capture clock is
// rosgraph_msgs/Clock on /clock, published live over DDS best effort (as
// a simulator's clock is) from a start near zero: segments carry the
// simulator's time, not the wall clock's.
func TestRunROS2SimTime(t *testing.T) {
	tools := ddstest.Build(t)
	const simStart = 1000 * time.Second
	domain, d, store := runROS2(t, "use_sim_time: true", `fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]`)
	clock := ddstest.Start(t, tools.Pub, domain, "-t", "/clock", "-k", "clock", "-b", "-c", fmt.Sprint(simStart.Milliseconds()),
		"-p", "20", "-n", "1000000")
	clock.WaitLine(t, "ready")
	// a String has no header: before the first /clock it is dropped, so
	// the FSM starts once the clock ticks in the daemon
	poll.Until(t, 60*time.Second, "the daemon's first /clock", func() bool {
		c := d.capt.Load()
		if c == nil || !c.SimTime() {
			return false
		}
		now, ok := c.Now()
		return ok && now.Before(time.Unix(0, 0).Add(simStart+time.Hour))
	})
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "700", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	ep := waitSegments(t, store, 2)
	lo, hi := time.Unix(0, 0).Add(simStart), time.Unix(0, 0).Add(simStart+time.Hour)
	for _, s := range ep.Segments {
		if s.Start.Before(lo) || s.End.After(hi) || s.End.Before(s.Start) {
			t.Errorf("segment %s %v..%v: want simulator time from %v", s.Label, s.Start, s.End, lo)
		}
	}
	if ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v", ep.Segments)
	}
}

// TestRunROS2LatchedStateLateJoiner: an FSM state topic published
// transient-local (as ROS 2 nodes latch their state) whose writer keeps
// a history of 10: edged joining late takes the current state only, as a
// ROS1 latched topic gives it, and not the history, whose transitions
// would all be stamped with the moment edged joined (a "reach" segment
// of zero length that never happened then).
func TestRunROS2LatchedStateLateJoiner(t *testing.T) {
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	domain := ddstest.Domain()
	// before edged runs: the robot went IDLE -> reach -> grasp
	history := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-l", "-D", "10", "-n", "3", "-v", "IDLE,reach,grasp")
	history.WaitLine(t, "done")
	_, _, store := runROS2OnDomain(t, domain, "", `fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]`)
	// edged takes the latched state first: the stand-in robot below is a
	// second writer, whose samples nothing orders after the first one's
	// (a real state machine is one writer, whose samples arrive in order)
	poll.Until(t, 60*time.Second, "edged to open a segment for the latched state", func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 {
			return false
		}
		ep, err := episode.Load(store, ms[0].ID)
		return err == nil && len(ep.Transitions) > 0 && ep.Transitions[len(ep.Transitions)-1].Opens != ""
	})
	// edged is in grasp (the latched state); the robot then goes back to IDLE
	end := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-l", "-D", "10", "-w", "-n", "2", "-p", "700", "-v", "place,IDLE")
	end.WaitLine(t, "done")
	ep := waitSegments(t, store, 2)
	var labels []string
	for _, s := range ep.Segments {
		labels = append(labels, s.Label)
	}
	// Depth 1 keeps only the newest sample not yet taken; the reader may
	// still take an older one of the history before the next arrives
	// (retransmits spread out on a loaded machine): then reach shows as
	// a short segment at the join, before the latched state.
	if got := fmt.Sprint(labels); got != "[grasp place]" && got != "[reach grasp place]" {
		t.Errorf("segments %v, want [grasp place]: the latched state, then what happened", labels)
	}
}

// TestRunROS2DiscoversCamerasAndJoints: with no cameras and no joints
// configured, edged run under ROS 2 takes every CompressedImage and
// JointState topic of the graph (DCPSPublication), as it does from a
// ROS1 master, including publishers that appear after it started.
func TestRunROS2DiscoversCamerasAndJoints(t *testing.T) {
	tools := ddstest.Build(t)
	frame := jpegFile(t)
	domain, d, _ := runROS2(t, "", `fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]`)
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/wrist/image/compressed", "-k", "image", "-b", "-f", frame, "-n", "1000000", "-p", "20")
	joints := ddstest.Start(t, tools.Pub, domain, "-t", "/arm/joint_states", "-k", "joints", "-n", "1000000", "-p", "10")
	cam.WaitLine(t, "ready")
	joints.WaitLine(t, "ready")
	events := map[string]uint64{}
	poll.Until(t, 90*time.Second, "events from the discovered camera and joints", func() bool {
		c := d.capt.Load()
		if c == nil {
			return false
		}
		for _, st := range c.Stats() {
			events[st.Topic] = st.Events
		}
		return events["/wrist/image/compressed"] > 0 && events["/arm/joint_states"] > 0
	})
}

// TestRunROS2QoSOverride: a ros2.qos override applies to the topic it
// names, relative names resolved as the topics' are: "default" (reliable)
// on a best-effort camera matches nothing, as in ROS 2, and edged says
// so. The relative key was never resolved and the override silently did
// nothing.
func TestRunROS2QoSOverride(t *testing.T) {
	tools := ddstest.Build(t)
	logs := &lockedBuf{}
	domain, _, _ := runROS2Logged(t, ddstest.Domain(), "qos: {wrist/image/compressed: default}",
		"cameras: [{topic: wrist/image/compressed}]\nfsm: [{topic: /task/state}]", logs)
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/wrist/image/compressed", "-k", "image", "-b", "-n", "1000000", "-p", "20")
	cam.WaitLine(t, "ready")
	poll.Until(t, 60*time.Second, "the incompatible QoS warning", func() bool {
		l := logs.String()
		return strings.Contains(l, "incompatible") && strings.Contains(l, "topic=/wrist/image/compressed") &&
			strings.Contains(l, "policy=reliability")
	})
}

// TestRunROS2StatusHasNoMaster: a DDS domain has no master, so under
// ROS 2 the status page and status.json name the node (the domain) and
// claim no master (the daemon used to show the domain as a master URI,
// always up).
func TestRunROS2StatusHasNoMaster(t *testing.T) {
	domain, d, _ := runROS2(t, "", `fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]`)
	poll.Until(t, 60*time.Second, "capture started", func() bool { return d.capt.Load() != nil })
	js, err := json.Marshal(d.pageData())
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := statusPage.Execute(&page, d.pageData()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		want       []string
		absent     []string
	}{
		{"status.json", string(js), []string{fmt.Sprintf(`"node":"ros2 domain %d"`, domain)}, []string{`"master`}},
		{"status page", page.String(), []string{fmt.Sprintf("node ros2 domain %d", domain)}, []string{"master"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.text, w) {
				t.Errorf("%s lacks %q:\n%s", tc.name, w, tc.text)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(tc.text, a) {
				t.Errorf("%s has %q under ROS 2:\n%s", tc.name, a, tc.text)
			}
		}
	}
}

// Under ROS 2, as under ROS1, capture's topics are Direct: the
// participant's pump calls capture's Handle, so a frame
// crosses no goroutine between Cyclone and its ring (docs/DESIGN.md,
// "Hand-offs per message"); without a Handle it queues as before.
func TestDDSNodeSubscriptionsAreDirect(t *testing.T) {
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	p, err := dds.NewParticipant(dds.Config{DomainID: ddstest.Domain()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	node := ddsNode{p: p}
	for _, tc := range []struct {
		name   string
		handle func(*ros.Message)
		direct bool
	}{
		{"handle", func(m *ros.Message) { m.Release() }, true},
		{"queue", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, err := node.Subscribe(context.Background(), capture.SubscribeOptions{Topic: "/cam/compressed", Handle: tc.handle})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			d, ok := sub.(capture.Direct)
			if got := ok && d.HandlesDirectly(); got != tc.direct {
				t.Errorf("HandlesDirectly = %v, want %v", got, tc.direct)
			}
		})
	}
}
