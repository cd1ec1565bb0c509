package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink/wire"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSink runs `edged sink --listen 127.0.0.1:0` until the test ends
// and returns the address it serves on, read from its log.
func startSink(t *testing.T, args ...string) (addr string, log *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, edgedBin, append([]string{"sink", "--listen", "127.0.0.1:0"}, args...)...)
	log = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	listening := regexp.MustCompile(`http listening addr=(\S+)`)
	poll.Until(t, 10*time.Second, "the sink's http listener", func() bool {
		m := listening.FindStringSubmatch(log.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	return addr, log
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
// (ready only while subscribed) and /metrics with the sink's counters,
// against a real mosquitto.
func TestSinkServesMetricsAndHealth(t *testing.T) {
	// No broker yet: the sink serves, and says why it is not ready.
	dead := brokertest.Start(t, brokertest.Options{})
	dead.Stop()
	addr, log := startSink(t, "--broker", dead.URL, "--out", t.TempDir())
	code, body := get(t, "http://"+addr+"/healthz")
	var h struct {
		Ready    bool     `json:"ready"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil || code != http.StatusServiceUnavailable || h.Ready || len(h.Problems) == 0 {
		t.Fatalf("/healthz with no broker: %d %q (%v); log:\n%s", code, body, err, log)
	}

	b := brokertest.Start(t, brokertest.Options{})
	addr, log = startSink(t, "--broker", b.URL, "--out", t.TempDir())
	poll.Until(t, 15*time.Second, "/healthz ready", func() bool {
		code, _ := get(t, "http://"+addr+"/healthz")
		return code == http.StatusOK
	})
	const ep = "arm-01-20231114T221320.000Z"
	seg, _ := (&wire.Segment{Index: 0, Label: "PICK", Source: "/s", Kind: "string", Outcome: "completed"}).MarshalMsg(nil)
	payload, _ := wire.New(wire.NewID(), "arm-01", ep, wire.KindSegment, 0, 1, seg).MarshalMsg(nil)
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL).SetClientID("arm-01"))
	if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("robot connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	if tok := c.Publish("edged/arm-01/segment", 1, false, payload); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
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
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the sink logged an error:\n%s", log)
	}
}
