package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/uplink/wire"
)

// startSink runs `edged sink --listen 127.0.0.1:0` until the test ends
// and returns the address it serves on, read from its log.
func startSink(t *testing.T, args ...string) (addr string, p *rostest.Proc) {
	t.Helper()
	p = rostest.Start(t, nil, edgedBin, append([]string{"sink", "--listen", "127.0.0.1:0"}, args...)...)
	listening := regexp.MustCompile(`http listening addr=(\S+)`)
	poll.Until(t, 10*time.Second, "the sink's http listener", func() bool {
		m := listening.FindStringSubmatch(p.Output())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	return addr, p
}

// replayToSink replays the generated episode (`edged replay --broker`)
// through a real mosquitto to `edged sink --out tmp/sink` and waits for
// it complete at the sink; it returns the sink's out directory, the sink
// (running until the test ends) and the episode as the sink stored it.
func replayToSink(t *testing.T, tmp string) (sinkOut string, sink *rostest.Proc, ep *episode.Episode) {
	t.Helper()
	bag, _ := pipelinetest.SimBag(t, tmp)
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut = filepath.Join(tmp, "sink")
	addr, sink := startSink(t, "--broker", broker.URL, "--out", sinkOut, "--fleet-every", "0")
	poll.Until(t, 15*time.Second, "the sink subscribed (/healthz ready)", func() bool {
		code, _ := get(t, "http://"+addr+"/healthz")
		return code == http.StatusOK
	})
	if out, errOut, err := edgedWithin(t, nil, 30*time.Second, "replay", "-q", "--out", filepath.Join(tmp, "robot"),
		"--fsm", "/task/state", "--idle", "IDLE", "--broker", broker.URL, bag); err != nil {
		t.Fatalf("replay --broker: %v\n%s%s", err, out, errOut)
	}
	store := blob.Dir{Root: episode.StoreDir(sinkOut)}
	poll.Until(t, 20*time.Second, "the episode complete at the sink", func() bool {
		ms, err := episode.ListBlobs(store)
		if err != nil || len(ms) != 1 || !ms[0].Complete {
			return false
		}
		ep, err = episode.LoadBlobs(store, ms[0].ID)
		return err == nil
	})
	return sinkOut, sink, ep
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

// TestSinkServesMetricsAndHealth: `edged sink --listen` serves /healthz
// (ready only while subscribed at the broker) and /metrics with the
// sink's counters, against a real mosquitto, and stops cleanly.
func TestSinkServesMetricsAndHealth(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	addr, p := startSink(t, "--broker", b.URL, "--out", t.TempDir())
	health := func() (code int, ready bool, problems []string) {
		code, body := get(t, "http://"+addr+"/healthz")
		var h struct {
			Ready    bool     `json:"ready"`
			Problems []string `json:"problems"`
		}
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatalf("/healthz: %q: %v", body, err)
		}
		return code, h.Ready, h.Problems
	}
	poll.Until(t, 15*time.Second, "/healthz ready", func() bool {
		code, ready, _ := health()
		return code == http.StatusOK && ready
	})

	const ep = "arm-01-20231114T221320.000Z"
	seg, _ := (&wire.Segment{Index: 0, Label: "PICK", Source: "/s", Kind: "string", Outcome: "completed"}).MarshalMsg(nil)
	payload, _ := wire.New(wire.NewID(), "arm-01", ep, wire.KindSegment, 0, 1, seg).MarshalMsg(nil)
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL).SetClientID("arm-01"))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("robot connect: %v", tok.Error())
	}
	if tok := c.Publish("edged/arm-01/segment", 1, false, payload); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	c.Disconnect(100)
	want := []string{"edged_sink_received_total 1", "edged_sink_delivered_total 1", "edged_sink_connected 1", "edged_sink_rejected_total 0"}
	poll.Until(t, 15*time.Second, "the delivered message in /metrics", func() bool {
		_, m := get(t, "http://"+addr+"/metrics")
		for _, w := range want {
			if !strings.Contains(m, "\n"+w+"\n") {
				return false
			}
		}
		return true
	})

	// The broker goes away: not ready, and says why.
	b.Stop()
	poll.Until(t, 15*time.Second, "/healthz not ready without the broker", func() bool {
		code, ready, problems := health()
		return code == http.StatusServiceUnavailable && !ready && len(problems) > 0
	})
	p.Stop(10 * time.Second)
	if err := p.Wait(time.Second); err != nil || !strings.Contains(p.Output(), "sink: stopped") || strings.Contains(p.Output(), "level=ERROR") {
		t.Errorf("the sink did not stop cleanly on SIGINT: %v\n%s", err, p.Output())
	}
}
