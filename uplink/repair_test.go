package uplink_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/sink"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// Repair tests: a broker that acknowledges a robot's message and then
// does not deliver it. In each, the episode must end complete at the
// sink and acknowledged at the robot, with every file once.

// repairRobot is a robot whose uplink listens to acknowledgements (so
// it keeps what it ships until the sink acknowledges the episode) and
// sends an unacknowledged end again after 2 s.
func repairRobot(t *testing.T, broker string, auth mqttconn.Auth) (*testUplink, *uploadedRecorder) {
	t.Helper()
	up := &uploadedRecorder{}
	cfg := uplink.Config{Robot: robot, Dir: t.TempDir(), Broker: broker, MaxPayload: 16 << 10, OutboxBytes: 64 << 20,
		Auth: auth, Version: "test", MinBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond,
		ResendAfter: 2 * time.Second}
	u, err := openUplink(cfg, uplink.Options{Logger: quiet, OnUploaded: up.add})
	mustNil(t, err)
	t.Cleanup(func() { u.Close() })
	return u, up
}

// repairSink is a sink that asks for what it lacks 200 ms after an end.
func repairSink(t *testing.T, broker string, auth mqttconn.Auth, out string, mod func(*sink.Config)) *receiver {
	t.Helper()
	return startSinkWith(t, broker, auth, out, nil, func(c *sink.Config) {
		c.RepairAfter = 200 * time.Millisecond
		if mod != nil {
			mod(c)
		}
	})
}

// repairEpisode ships one episode in steps: each step ships its part
// (the start; segment i with contact sheet i+1 and its snippet and
// labeling sheet; the end). Three segments: parts 0..4.
type repairEpisode struct {
	t  *testing.T
	u  *testUplink
	id string
}

func (e repairEpisode) ship(parts ...int) {
	e.t.Helper()
	for _, p := range parts {
		switch {
		case p == 0:
			mustNil(e.t, e.u.EpisodeStarted(manifest(e.id, false)))
		case p <= 3:
			i := p - 1
			mustNil(e.t, e.u.Segment(manifest(e.id, false), segment(i)))
			mustNil(e.t, e.u.Sheet(e.id, fakeSheet(i+1, 30_000)))
			lab := fakeSheet(20+i, 3000)
			lab.Meta.Kind, lab.Meta.Segment = "label", &sheet.SegmentMeta{Index: i}
			mustNil(e.t, e.u.LabelSheet(e.id, i, lab))
		default:
			mustNil(e.t, e.u.EpisodeEnded(manifest(e.id, true)))
		}
	}
}

// published waits until the broker acknowledged everything queued.
func published(t *testing.T, u *testUplink) {
	t.Helper()
	poll.Until(t, 20*time.Second, "the broker acknowledged every message", func() bool { return u.Stats().Outbox.Pending == 0 })
}

// checkRepaired: acknowledged at the robot (which then keeps nothing),
// complete at the sink (a directory) with each file once.
func checkRepaired(t *testing.T, u *testUplink, up *uploadedRecorder, out, id string) {
	t.Helper()
	waitAcknowledged(t, u, up, id)
	checkStored(t, blob.Dir{Root: episode.StoreDir(out)}, id)
}

func waitAcknowledged(t *testing.T, u *testUplink, up *uploadedRecorder, id string) {
	t.Helper()
	poll.Until(t, 60*time.Second, "the episode acknowledged at the robot", func() bool { return slices.Contains(up.get(), id) })
	poll.Until(t, 10*time.Second, "the robot forgets the acknowledged episode", func() bool {
		st := u.Stats()
		return st.Outbox.Held == 0 && len(u.Awaiting()) == 0
	})
}

// checkStored: complete in the store (episodes/) with each file once,
// read where it is (episode.LoadBlobs).
func checkStored(t *testing.T, store blob.Blobs, id string) {
	t.Helper()
	e, err := episode.LoadBlobs(store, id)
	mustNil(t, err)
	if !e.Manifest.Complete || len(e.Segments) != 3 || e.Lack != nil {
		t.Fatalf("at the sink: complete %v, %d segments, lacks %+v", e.Manifest.Complete, len(e.Segments), e.Lack)
	}
	seen := map[int]bool{}
	for _, s := range e.Segments {
		if seen[s.Index] {
			t.Errorf("segment %d twice", s.Index)
		}
		seen[s.Index] = true
	}
	l, err := store.List(id + "/") // the store's own lock files (dot names) are not listed
	mustNil(t, err)
	var files []string
	for _, f := range l {
		files = append(files, strings.TrimPrefix(f.Name, id+"/"))
	}
	slices.Sort(files)
	want := []string{"labels/camera_color/label-0000.jpg", "labels/camera_color/label-0000.json",
		"labels/camera_color/label-0001.jpg", "labels/camera_color/label-0001.json",
		"labels/camera_color/label-0002.jpg", "labels/camera_color/label-0002.json", "manifest.json", "segments.rec",
		"sheets/camera_color/sheet-0001.jpg", "sheets/camera_color/sheet-0001.json",
		"sheets/camera_color/sheet-0002.jpg", "sheets/camera_color/sheet-0002.json",
		"sheets/camera_color/sheet-0003.jpg", "sheets/camera_color/sheet-0003.json",
		"snippets/camera_color/sheet-0001.msgpack.zst", "snippets/camera_color/sheet-0002.msgpack.zst",
		"snippets/camera_color/sheet-0003.msgpack.zst"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("files at the sink:\n%s\nwant\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
}

// The case of the issue: the broker restarts without persistence and
// the robot reconnects and publishes before the sink subscribes again;
// the broker acknowledges and drops segment 1 with its sheets.
func TestRepairAfterBrokerRestartWithoutPersistence(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{NoPersistence: true})
	out := t.TempDir()
	r := repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	u, up := repairRobot(t, b.URL, mqttconn.Auth{})
	ep := repairEpisode{t, u, epID("restart")}
	ep.ship(0, 1)
	poll.Until(t, 20*time.Second, "start and part 1 at the sink", func() bool { return r.count() == 1+4 })
	r.stop()
	b.Stop()
	b.Start()
	ep.ship(2) // no subscriber: acknowledged and dropped
	published(t, u)
	r = repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	ep.ship(3, 4)
	checkRepaired(t, u, up, out, ep.id)
	if st := u.Stats().Repair; st.Requests == 0 || st.Resent != 4 {
		t.Errorf("robot repair stats %+v: want the 4 lost pieces of part 2 sent again", st)
	}
	if r.sink.Stats().RepairRequests == 0 {
		t.Error("the sink asked for nothing")
	}
}

// An ACL refuses the snippets (mosquitto acknowledges and drops them);
// once the operator fixes it, the sink's next request gets them.
func TestRepairAfterACLRefusal(t *testing.T) {
	acl := filepath.Join(t.TempDir(), "acl")
	sinkRules := "user edged-sink\ntopic read edged/+/+\ntopic write edged/+/ack/uploaded\ntopic write edged/+/ack/repair\n\n"
	robotRules := "pattern read edged/%u/ack/uploaded\npattern read edged/%u/ack/repair\n"
	var refusing string
	for _, k := range []string{"episode_start", "episode_end", "segment", "sheet", "label_sheet", "status"} {
		refusing += "pattern write edged/%u/" + k + "\n"
	}
	mustNil(t, os.WriteFile(acl, []byte(sinkRules+robotRules+refusing), 0o644))
	b := brokertest.Start(t, brokertest.Options{ACLFile: acl, Users: map[string]string{robot: "pw", "edged-sink": "pw-sink"}})
	out := t.TempDir()
	repairSink(t, b.URL, mqttconn.Auth{Username: "edged-sink", Password: "pw-sink"}, out, nil)
	u, up := repairRobot(t, b.URL, mqttconn.Auth{Username: robot, Password: "pw"})
	ep := repairEpisode{t, u, epID("acl")}
	ep.ship(0, 1, 2, 3, 4)
	poll.Until(t, 20*time.Second, "the sink asks for the snippets", func() bool {
		aw := u.Awaiting()
		return len(aw) == 1 && slices.Contains(aw[0].Lacks, "snippet/camera_color/2")
	})
	if got := up.get(); len(got) != 0 {
		t.Fatalf("acknowledged without its snippets: %v", got)
	}
	mustNil(t, os.WriteFile(acl, []byte(sinkRules+robotRules+"pattern write edged/%u/+\n"), 0o644))
	b.Reload()
	checkRepaired(t, u, up, out, ep.id)
}

// The sink's session queue overflows while the sink is away
// (max_queued_messages 3): the broker drops the rest, the end manifest
// included, so the robot's resend_after brings the end and the sink asks
// for everything else.
func TestRepairAfterSessionQueueOverflow(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{MaxQueued: 3})
	out := t.TempDir()
	r := repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	r.stop() // its persistent session stays, with room for 3 messages
	u, up := repairRobot(t, b.URL, mqttconn.Auth{})
	ep := repairEpisode{t, u, epID("overflow")}
	ep.ship(0, 1, 2, 3, 4)
	published(t, u)
	repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	checkRepaired(t, u, up, out, ep.id)
	if st := u.Stats().Repair; st.EndResends == 0 {
		t.Errorf("robot repair stats %+v: the end manifest was dropped, so it must have been sent again", st)
	}
}

// The sink loses its state directory and its store while the robot
// ships: what it had is asked for again.
func TestRepairAfterSinkLostEverything(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	out := filepath.Join(t.TempDir(), "out")
	r := repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	u, up := repairRobot(t, b.URL, mqttconn.Auth{})
	ep := repairEpisode{t, u, epID("wiped")}
	ep.ship(0, 1)
	poll.Until(t, 20*time.Second, "start and part 1 at the sink", func() bool { return r.count() == 1+4 })
	r.stop()
	mustNil(t, os.RemoveAll(out))
	ep.ship(2, 3, 4) // queued in the sink's session at the broker
	published(t, u)
	repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	checkRepaired(t, u, up, out, ep.id)
}

// Two sinks of a group, on a directory and on an object store: the robot
// publishes part of the episode before either subscribed (nobody to
// deliver to: the broker drops it); any sink may ask and any may take
// what the robot sends again.
func TestRepairWithSinkGroup(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		out := t.TempDir()
		testRepairWithSinkGroup(t, out, nil, blob.Dir{Root: filepath.Join(out, episode.EpisodesDir)})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t)
		st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
		mustNil(t, err)
		testRepairWithSinkGroup(t, srv.URL("fleet"), st, blob.Sub(st, episode.EpisodesDir))
	})
}

// testRepairWithSinkGroup runs two sinks of a group on out (store, when
// set, is its object store); stored is its episodes/ to read.
func testRepairWithSinkGroup(t *testing.T, out string, store, stored blob.Blobs) {
	b := brokertest.Start(t, brokertest.Options{})
	u, up := repairRobot(t, b.URL, mqttconn.Auth{})
	ep := repairEpisode{t, u, epID("group")}
	ep.ship(0, 1)
	published(t, u)
	var sinks []*receiver
	for _, id := range []string{"a", "b"} {
		sinks = append(sinks, repairSink(t, b.URL, mqttconn.Auth{}, out, func(c *sink.Config) {
			c.Group, c.ClientID, c.StateDir, c.Store = "cloud", "sink-"+id, t.TempDir(), store
		}))
	}
	ep.ship(2, 3, 4)
	waitAcknowledged(t, u, up, ep.id)
	checkStored(t, stored, ep.id)
	var asked uint64
	for _, s := range sinks {
		asked += s.sink.Stats().RepairRequests
	}
	if asked == 0 {
		t.Error("no sink of the group asked for the dropped part")
	}
}

// The sink loses its store but keeps its state (its id log): what the
// robot sends again carries ids the sink has seen, and must be taken all
// the same.
func TestRepairAfterSinkLostItsStore(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	out := t.TempDir()
	r := repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	u, up := repairRobot(t, b.URL, mqttconn.Auth{})
	ep := repairEpisode{t, u, epID("store-lost")}
	ep.ship(0, 1)
	poll.Until(t, 20*time.Second, "start and part 1 at the sink", func() bool { return r.count() == 1+4 })
	r.stop()
	mustNil(t, os.RemoveAll(episode.StoreDir(out)))
	ep.ship(2, 3, 4)
	published(t, u)
	repairSink(t, b.URL, mqttconn.Auth{}, out, nil)
	checkRepaired(t, u, up, out, ep.id)
}
