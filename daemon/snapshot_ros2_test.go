//go:build cgo && !purego

package daemon

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// snapshotClient calls a std_srvs/srv/Trigger service over Cyclone DDS
// as an rmw_cyclonedds_cpp client does: requests with its request
// header on rq/SERVICERequest, replies taken from rr/SERVICEReply when
// they echo it.
type snapshotClient struct {
	w    *dds.Writer
	s    *dds.Subscription
	guid uint64
	seq  int64
}

func newSnapshotClient(t *testing.T, domain int, service string) *snapshotClient {
	t.Helper()
	p, err := dds.NewParticipant(dds.Config{DomainID: domain}) // CYCLONEDDS_URI as the daemon's (runROS2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	req, reply := dds.ServiceTopics(service)
	w, err := p.NewWriterOn(req, cdr.TypeTriggerRequest, snapshotQoS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s, err := p.Subscribe(context.Background(), dds.SubscribeOptions{Topic: service, DDSTopic: reply,
		Type: cdr.TypeTriggerResponse, QoS: snapshotQoS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// the service is available once its reader and writer both match,
	// as rclcpp's wait_for_service asks
	poll.Until(t, 30*time.Second, "the ~snapshot service to match", func() bool {
		return w.Matched() > 0 && s.Stats().Publishers > 0
	})
	return &snapshotClient{w: w, s: s, guid: 0x5eed}
}

// call sends one request and returns the reply that echoes its header
// (another client's replies, with another guid, are skipped).
func (c *snapshotClient) call(t *testing.T) (bool, string) {
	t.Helper()
	c.seq++
	h := cdr.RequestHeader{GUID: c.guid, Seq: c.seq}
	if err := c.w.Write(cdr.AppendTriggerRequest(nil, h)); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-c.s.Messages():
			got, ok, msg, err := cdr.ReadTriggerReply(m.Data)
			m.Release()
			if err != nil {
				t.Fatalf("a reply that is not a Trigger response: %v", err)
			}
			if got == h {
				return ok, msg
			}
		case <-deadline:
			t.Fatalf("no reply to request %+v", h)
		}
	}
}

// TestSnapshotServiceROS2WritesAClip: a ROS 2 client calls the live
// daemon's ~snapshot (/edged/snapshot, std_srvs/srv/Trigger over
// Cyclone DDS) while a C publisher streams a camera: success naming the
// clip; that clip written in the episode holds ROS 2 (ros2msg, cdr)
// frames of its window; a second call within min_interval answers
// success false saying why.
func TestSnapshotServiceROS2WritesAClip(t *testing.T) {
	tools := ddstest.Build(t)
	frame := jpegFile(t)
	domain, _, store := runROS2(t, "", `
cameras: [{topic: /cam/compressed, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
clips: {enabled: true, pre: 2s, post: 1s}
`)
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-f", frame, "-n", "100000", "-p", "40")
	cam.WaitLine(t, "ready")
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "2", "-p", "500", "-v", "IDLE,reach")
	fsm.WaitLine(t, "done")
	ep := waitOpenEpisode(t, store)
	c := newSnapshotClient(t, domain, "/edged/snapshot")
	ok, msg := c.call(t)
	m := regexp.MustCompile(`^clip (\S+) of episode (\S+) `).FindStringSubmatch(msg)
	if !ok || m == nil || m[2] != ep.Manifest.ID {
		t.Fatalf("~snapshot answered success=%v message=%q", ok, msg)
	}
	if ok, again := c.call(t); ok || !strings.Contains(again, clip.SkipRateLimit) {
		t.Errorf("a second ~snapshot within min_interval answered success=%v message=%q", ok, again)
	}
	path := filepath.Join(episode.ClipDir(ep.Dir), m[1])
	poll.Until(t, 30*time.Second, "the clip "+m[1], func() bool { _, err := os.Stat(path); return err == nil })
	stamps, perTopic, meta := pipelinetest.ReadClip(t, path, "/cam/compressed")
	// 3 s of a 25 Hz camera: most of its 75 frames (the first window
	// may begin before the camera's first frame reached the ring)
	if len(stamps) < 40 || meta["trigger"] != string(clip.KindRequest) || meta["lost_frames"] != "0" {
		t.Errorf("clip: %d frames, metadata %v", len(stamps), meta)
	}
	for i := 1; i < len(stamps); i++ {
		if !stamps[i].After(stamps[i-1]) {
			t.Fatalf("frame %d stamped %v after %v", i, stamps[i], stamps[i-1])
		}
	}
	pipelinetest.CheckClipWithMcapCore(t, path, "/cam/compressed", perTopic)
}

// waitOpenEpisode polls the store for its one episode (open: the FSM
// left IDLE).
func waitOpenEpisode(t *testing.T, store string) *episode.Episode {
	t.Helper()
	var ep *episode.Episode
	poll.Until(t, 60*time.Second, "an open episode", func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 {
			return false
		}
		ep, err = episode.Load(store, ms[0].ID)
		return err == nil
	})
	return ep
}
