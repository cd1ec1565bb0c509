//go:build cgo && !purego

package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// jpegFile writes a small JPEG for pub -f and returns its path.
func jpegFile(t *testing.T) string {
	t.Helper()
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	frame := filepath.Join(t.TempDir(), "frame.jpg")
	if err := os.WriteFile(frame, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return frame
}

// topicStats returns capture's stats by topic (none before capture runs).
func topicStats(d *Daemon) map[string]capture.TopicStats {
	out := map[string]capture.TopicStats{}
	if c := d.capt.Load(); c != nil {
		for _, s := range c.Stats() {
			out[s.Topic] = s
		}
	}
	return out
}

// TestRunROS2TypeSquatters: writers of another type that appear on the
// robot's topics before the honest ones (a JointState on the FSM topic,
// a String on /joint_states, a non-ROS type on the camera) decide
// nothing: edged records the honest episode, joints and frames, and
// counts each squatter once (edged_topic_wrong_type_writers_total). The
// first writer's type won: 0 episodes, 0 joint samples, 0 frames, and
// nothing said (the camera logged `type "" is not a ROS 2 type`).
func TestRunROS2TypeSquatters(t *testing.T) {
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	domain := ddstest.Domain()
	squatters := map[string]string{"/task/state": "joints", "/joint_states": "string", "/cam/compressed": "blob"}
	for topic, kind := range squatters {
		ddstest.Start(t, tools.Pub, domain, "-t", topic, "-k", kind, "-n", "0").WaitLine(t, "ready")
	}
	_, d, store := runROS2OnDomain(t, domain, "", `
cameras: [{topic: /cam/compressed}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
`)
	poll.Until(t, 30*time.Second, "each squatter counted once", func() bool {
		st := topicStats(d)
		for topic := range squatters {
			if st[topic].WrongTypeWriters != 1 {
				return false
			}
		}
		return true
	})
	ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-b", "-f", jpegFile(t), "-n", "1000000", "-p", "25")
	ddstest.Start(t, tools.Pub, domain, "-t", "/joint_states", "-k", "joints", "-n", "1000000", "-p", "10")
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "700", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	ep := waitSegments(t, store, 2)
	if ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v", ep.Segments)
	}
	poll.Until(t, 30*time.Second, "honest frames and joint samples", func() bool {
		st := topicStats(d)
		return st["/cam/compressed"].Events > 0 && st["/joint_states"].Events > 0
	})
}

// TestRunROS2ParticipantIndexExhausted: when every DDS participant index
// is taken, edged run says so, instead of blaming the configuration.
func TestRunROS2ParticipantIndexExhausted(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with Cyclone DDS publishers; skipped with -short")
	}
	tools := ddstest.Build(t)
	domain := ddstest.Domain()
	ddstest.Start(t, tools.Pub, domain, "-n", "0").WaitLine(t, "ready") // index 0, the only one below
	t.Setenv("CYCLONEDDS_URI", strings.Replace(dds.LoopbackConfig, "<MaxAutoParticipantIndex>60<", "<MaxAutoParticipantIndex>1<", 1))
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {version: 2}\nros2: {domain_id: %d}\nhttp: {listen: \"off\"}\nfsm: [{topic: /task/state}]\n",
		filepath.Join(t.TempDir(), "data"), domain))
	_, run := runDaemon(t, cfg, Options{})
	returned, err := run.wait(30 * time.Second)
	if !returned || !errors.Is(err, dds.ErrNoParticipantIndex) || strings.Contains(err.Error(), "configuration valid") ||
		!strings.Contains(err.Error(), "participant index") {
		t.Errorf("run: %v; want it to say every participant index is taken", err)
	}
}

// TestRunROS2DiscoveryCapped: with no cameras configured, a peer that
// publishes 60 camera topics gets discovery.max_cameras of them at most;
// the camera already recorded keeps its place, the rest are refused,
// logged and counted once, and the configured FSM records its episode.
// Every topic was subscribed (1,000 writers: 1,003 subscriptions, 1,018
// threads, 5.9 GB).
func TestRunROS2DiscoveryCapped(t *testing.T) {
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	logs := &lockedBuf{}
	domain, d, store := runROS2With(t, ddstest.Domain(), "", `
discovery: {max_cameras: 4}
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
`, Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), RediscoverEvery: 200 * time.Millisecond})
	ddstest.Start(t, tools.Pub, domain, "-t", "/wrist/image/compressed", "-k", "image", "-b", "-f", jpegFile(t), "-n", "1000000", "-p", "25")
	poll.Until(t, 30*time.Second, "frames from the robot's camera", func() bool {
		return topicStats(d)["/wrist/image/compressed"].Events > 0
	})
	ddstest.Start(t, tools.Pub, domain, "-t", "/a/flood", "-k", "image", "-T", "60", "-n", "0").WaitLine(t, "ready")
	poll.Until(t, 30*time.Second, "57 flood topics refused", func() bool { return d.pipe.Stats().DiscoveryRefused == 57 })
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "700", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	if ep := waitSegments(t, store, 2); ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v", ep.Segments)
	}
	cams := d.pipe.Topology().CameraTopics()
	if len(cams) != 4 || !slices.Contains(cams, "/wrist/image/compressed") {
		t.Errorf("cameras %v: want 4, the robot's among them", cams)
	}
	if n := d.pipe.Stats().DiscoveryRefused; n != 57 {
		t.Errorf("refused counted %d times over the rounds, want 57 (once each)", n)
	}
	// One warning per discovery round that met new topics (a loaded
	// machine may see the flood over two rounds), each topic in one.
	if n := refusedInWarnings(logs.String()); n != 57 {
		t.Errorf("warnings name %d refused topics, want 57 (each once):\n%s", n, logs.String())
	}
}

// refusedInWarnings sums the refused counts of the log's warnings of
// topics not captured.
func refusedInWarnings(logs string) int {
	n := 0
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "discovered topics not captured") {
			continue
		}
		if _, rest, ok := strings.Cut(line, " refused="); ok {
			v, _ := strconv.Atoi(strings.Fields(rest)[0])
			n += v
		}
	}
	return n
}

// heapInUse is the Go heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// rss is this process's resident set (/proc/self/status VmRSS), 0 when
// unknown.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestRunROS2HostilePeers: an honest robot (an FSM, a camera, joints)
// and, on the same domain, a hostile peer that squats the FSM topic
// with another type, floods /joint_states with JointStates of 80,000
// names (under the 1 MiB cap) at 20 Hz, and publishes 50 camera topics
// at 2 frames/s into discovery. The honest episode is recorded whole,
// and the daemon's memory (its Go heap, and the process's RSS growth)
// stays within the rings' budget + 256 MiB.
func TestRunROS2HostilePeers(t *testing.T) {
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	domain := ddstest.Domain()
	ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-k", "joints", "-n", "0").WaitLine(t, "ready")
	baseHeap, baseRSS := heapInUse(), rss()
	const maxCameras, ringBytes = 2, 8 << 20
	_, d, store := runROS2With(t, domain, "", fmt.Sprintf(`
ring: {max_bytes: %d}
discovery: {max_cameras: %d}
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
`, ringBytes, maxCameras), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RediscoverEvery: 200 * time.Millisecond})
	ddstest.Start(t, tools.Pub, domain, "-t", "/wrist/image/compressed", "-k", "image", "-b", "-f", jpegFile(t), "-n", "1000000", "-p", "25")
	poll.Until(t, 30*time.Second, "frames from the robot's camera", func() bool {
		return topicStats(d)["/wrist/image/compressed"].Events > 0
	})
	ddstest.Start(t, tools.Pub, domain, "-t", "/a/flood", "-k", "image", "-s", "2048", "-T", "50", "-p", "500", "-n", "1000000")
	ddstest.Start(t, tools.Pub, domain, "-t", "/joint_states", "-k", "joints", "-n", "1000000", "-p", "10")
	names := ddstest.Start(t, tools.Pub, domain, "-t", "/joint_states", "-k", "joints", "-J", "80000", "-w", "-n", "200", "-p", "50")
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "700", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	names.WaitLine(t, "done")
	ep := waitSegments(t, store, 2)
	if ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v: want the honest episode whole", ep.Segments)
	}
	poll.Until(t, 30*time.Second, "the name flood dropped and honest joints kept", func() bool {
		st := topicStats(d)["/joint_states"]
		return st.TooManyJoints > 0 && st.Events > 0
	})
	st := topicStats(d)
	if st["/task/state"].WrongTypeWriters != 1 {
		t.Errorf("/task/state: %d writers of another type counted, want 1", st["/task/state"].WrongTypeWriters)
	}
	if cams := d.pipe.Topology().CameraTopics(); len(cams) > maxCameras || !slices.Contains(cams, "/wrist/image/compressed") {
		t.Errorf("cameras %v: want at most %d, the robot's among them", cams, maxCameras)
	}
	bound := uint64(maxCameras*ringBytes + 256<<20)
	if heap := heapInUse(); heap > baseHeap+bound {
		t.Errorf("Go heap %d MiB (from %d MiB): over the rings' budget + 256 MiB", heap>>20, baseHeap>>20)
	}
	if r := rss(); r > baseRSS+bound {
		t.Errorf("RSS %d MiB (from %d MiB): over the rings' budget + 256 MiB", r>>20, baseRSS>>20)
	}
	t.Logf("heap %d -> %d MiB, RSS %d -> %d MiB", baseHeap>>20, heapInUse()>>20, baseRSS>>20, rss()>>20)
}
