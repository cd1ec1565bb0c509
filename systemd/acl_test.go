package systemd

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/sink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// TestMosquittoACL runs mosquitto with the sample ACL: a robot's messages
// on its own topics reach edged sink; what it publishes on another
// robot's topics is dropped by the broker, and it cannot read them.
func TestMosquittoACL(t *testing.T) {
	acl, err := filepath.Abs("mosquitto-edged.acl")
	if err != nil {
		t.Fatal(err)
	}
	b := brokertest.Start(t, brokertest.Options{ACLFile: acl,
		Users: map[string]string{"arm-01": "pw1", "arm-02": "pw2", "edged-sink": "pw-sink"}})

	var delivered []*wire.Envelope
	got := make(chan *wire.Envelope, 16)
	s, err := sink.New(sink.Config{Broker: b.URL, Out: t.TempDir(), ClientID: "sink-acl",
		Auth:      mqttconn.Auth{Username: "edged-sink", Password: "pw-sink"},
		OnDeliver: func(e *wire.Envelope) { got <- e }}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	poll.Until(t, 10*time.Second, "sink subscribed", func() bool { return s.Stats().Connects > 0 })

	// arm-02 listens to its own topics: the ACL gives robots no read.
	spy := connect(t, b.URL, "arm-02", "pw2")
	var spied atomic.Int64
	spyTok := spy.Subscribe("edged/+/+", 1, func(mqtt.Client, mqtt.Message) { spied.Add(1) })
	spyTok.WaitTimeout(5 * time.Second)

	arm1 := connect(t, b.URL, "arm-01", "pw1")
	publish := func(robot string, seq uint64) {
		t.Helper()
		seg, _ := (&wire.Segment{Index: int64(seq), Label: "PICK"}).MarshalMsg(nil)
		p, _ := wire.New(wire.NewID(), robot, robot+"-20231114T221320.000Z", wire.KindSegment, seq, 1, seg).MarshalMsg(nil)
		if tok := arm1.Publish("edged/"+robot+"/segment", 1, false, p); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}
	publish("arm-02", 1) // forged: dropped by the broker
	publish("arm-01", 2) // its own: delivered, after the forged one would have been
	select {
	case e := <-got:
		delivered = append(delivered, e)
	case <-time.After(10 * time.Second):
		t.Fatal("arm-01's own message did not arrive")
	}
	if e := delivered[0]; e.Robot != "arm-01" || e.Seq != 2 {
		t.Fatalf("the sink got %s seq %d first: the ACL let arm-01 publish as arm-02", e.Robot, e.Seq)
	}
	if st := s.Stats(); st.Delivered != 1 || st.Received != 1 {
		t.Errorf("sink stats %+v", st)
	}
	if n := spied.Load(); n != 0 {
		t.Errorf("a robot read %d messages of the fleet", n)
	}
}

// TestMosquittoACLAcks: with the sample ACL the sink may publish an
// acknowledgement and a repair request on a robot's ack topics and that
// robot reads them; another robot can neither read them nor forge one.
func TestMosquittoACLAcks(t *testing.T) {
	acl, err := filepath.Abs("mosquitto-edged.acl")
	if err != nil {
		t.Fatal(err)
	}
	ack, _ := (&wire.Ack{Robot: "arm-01", Episode: "arm-01-20231114T221320.000Z"}).MarshalMsg(nil)
	repair, _ := (&wire.Repair{Robot: "arm-01", Episode: "arm-01-20231114T221320.000Z", Missing: []string{"segment/1"}}).MarshalMsg(nil)
	for _, c := range []struct {
		topic   string
		payload []byte
	}{{wire.AckTopic("edged", "arm-01"), ack}, {wire.RepairTopic("edged", "arm-01"), repair}} {
		t.Run(c.topic, func(t *testing.T) {
			b := brokertest.Start(t, brokertest.Options{ACLFile: acl,
				Users: map[string]string{"arm-01": "pw1", "arm-02": "pw2", "edged-sink": "pw-sink"}})
			var own, spied atomic.Int64
			arm1 := connect(t, b.URL, "arm-01", "pw1")
			tok := arm1.Subscribe(c.topic, 1, func(mqtt.Client, mqtt.Message) { own.Add(1) })
			if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil || tok.(*mqtt.SubscribeToken).Result()[c.topic] > 2 {
				t.Fatalf("the robot may not subscribe to %s: %v", c.topic, tok.Error())
			}
			arm2 := connect(t, b.URL, "arm-02", "pw2")
			arm2.Subscribe("edged/+/ack/+", 1, func(mqtt.Client, mqtt.Message) { spied.Add(1) }).WaitTimeout(5 * time.Second)

			arm2.Publish(c.topic, 1, false, c.payload).WaitTimeout(5 * time.Second) // forged: dropped
			sinkc := connect(t, b.URL, "edged-sink", "pw-sink")
			sinkc.Publish(c.topic, 1, false, c.payload).WaitTimeout(5 * time.Second)
			poll.Until(t, 10*time.Second, "the sink's message at the robot", func() bool { return own.Load() >= 1 })
			// Both went to the broker before this point; one more round trip
			// through arm-01's subscription orders the forged one before it.
			sinkc.Publish(c.topic, 1, false, c.payload).WaitTimeout(5 * time.Second)
			poll.Until(t, 10*time.Second, "the second one", func() bool { return own.Load() >= 2 })
			if n := own.Load(); n != 2 {
				t.Errorf("arm-01 read %d messages, want the sink's 2 (a robot forged one)", n)
			}
			if n := spied.Load(); n != 0 {
				t.Errorf("arm-02 read %d messages of another robot's ack topics", n)
			}
		})
	}
}

func connect(t *testing.T, url, user, pass string) mqtt.Client {
	t.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("edged-" + user).
		SetUsername(user).SetPassword(pass))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("%s: connect: %v", user, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	return c
}
