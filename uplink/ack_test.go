package uplink_test

import (
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// uploadedRecorder collects OnUploaded calls.
type uploadedRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *uploadedRecorder) add(id string) { r.mu.Lock(); r.ids = append(r.ids, id); r.mu.Unlock() }
func (r *uploadedRecorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// TestCompleteEpisodeIsAcknowledged: once the sink holds an episode
// complete (end manifest, every segment, and every sheet, labeling sheet
// and snippet the end announced), it acknowledges it on the robot's ack
// topic and the robot reports it uploaded; before that, it does not. An
// acknowledgement naming another robot's episode is dropped. An
// acknowledgement sent while the robot is offline waits in its
// persistent session.
func TestCompleteEpisodeIsAcknowledged(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	out := t.TempDir()
	r := startSink(t, b.URL, mqttconn.Auth{}, out)
	var up uploadedRecorder
	dir := t.TempDir()
	u := newUplink(t, dir, b.URL, mqttconn.Auth{}, nil)
	u.Close()
	u, err := openUplink(u.cfg, uplink.Options{Logger: quiet, OnUploaded: up.add})
	mustNil(t, err)
	defer u.Close()

	ep := epID("ack")
	mustNil(t, u.EpisodeStarted(manifest(ep, false)))
	for i := range 3 {
		mustNil(t, u.Segment(manifest(ep, false), segment(i)))
	}
	mustNil(t, u.Sheet(ep, fakeSheet(1, 20_000)))
	lab := fakeSheet(2, 3000)
	lab.Meta.Kind = "label"
	mustNil(t, u.LabelSheet(ep, 1, lab))
	end := manifest(ep, true)
	cam := episode.CameraDir("/camera/color")
	end.Produced = map[string]episode.CameraCounts{cam: {Sheets: 2, LabelSheets: 1, Snippets: 2}}
	mustNil(t, u.EpisodeEnded(end))
	poll.Until(t, 20*time.Second, "all messages", func() bool { return r.count() == 1+3+2+1+1 })
	if got := r.sink.Stats().Completed; got != 0 || len(up.get()) != 0 {
		t.Fatalf("acknowledged with a sheet missing: completed %d, uploaded %v", got, up.get())
	}
	e, err := episode.Load(episode.StoreDir(r.out), ep)
	mustNil(t, err)
	if m := e.Manifest; m.Complete || !m.Closed || m.Held.Cameras[cam] != (episode.CameraCounts{Sheets: 1, LabelSheets: 1, Snippets: 1}) {
		t.Fatalf("sink manifest before the last sheet: %+v held %+v", m, m.Held)
	}

	// A forged acknowledgement (another robot's episode) is dropped.
	forge := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL).SetClientID("forger"))
	if tok := forge.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer forge.Disconnect(100)
	bad, _ := (&wire.Ack{Robot: "arm-02", Episode: episode.NewID("arm-02", epStart, "")}).MarshalMsg(nil)
	forge.Publish(wire.AckTopic("edged", robot), 1, false, bad).WaitTimeout(5 * time.Second)
	poll.Until(t, 10*time.Second, "the forged ack dropped", func() bool { return u.Stats().BadAcks == 1 })

	// The robot goes offline; the last sheet arrives (sent by a restarted
	// robot); the ack waits in the robot's session until it is back.
	u.Close()
	u2 := newUplink(t, t.TempDir(), b.URL, mqttconn.Auth{}, func(c *uplink.Config) { c.ClientID = "other-outbox" })
	defer u2.Close()
	mustNil(t, u2.Sheet(ep, fakeSheet(2, 20_000)))
	poll.Until(t, 20*time.Second, "the episode complete", func() bool { return r.sink.Stats().Acked == 1 })
	u, err = openUplink(u.cfg, uplink.Options{Logger: quiet, OnUploaded: up.add})
	mustNil(t, err)
	defer u.Close()
	poll.Until(t, 20*time.Second, "the robot told", func() bool { return len(up.get()) == 1 })
	if got := up.get(); got[0] != ep {
		t.Errorf("uploaded %v, want %s", got, ep)
	}
	e, err = episode.Load(episode.StoreDir(r.out), ep)
	mustNil(t, err)
	if !e.Manifest.Complete {
		t.Errorf("sink manifest not complete: %+v", e.Manifest)
	}
}
