package uplink_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/sink"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// syncBuffer is a log destination shared by goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretsNeverReachLogsOrStats: with a password configured (right,
// wrong, or in the broker URL), the password appears in no log line of
// the uplink or the sink, in no error, and in no Stats (what the daemon
// exports on /metrics and the status page).
func TestSecretsNeverReachLogsOrStats(t *testing.T) {
	secret := "pw-" + wire.NewID()
	b := brokertest.Start(t, brokertest.Options{User: "robot", Pass: secret})
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var seen []string
	check := func(what string, v any) {
		t.Helper()
		s := fmt.Sprintf("%+v", v)
		seen = append(seen, s)
		if strings.Contains(s, secret) {
			t.Errorf("%s shows the password: %s", what, s)
		}
	}
	newU := func(broker string, auth mqttconn.Auth) (*testUplink, error) {
		return openUplink(uplink.Config{Robot: robot, Dir: t.TempDir(), Broker: broker, Auth: auth, Version: "test",
			MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}, uplink.Options{Logger: log})
	}

	// Credentials in the URL: refused (they would never be sent, and the
	// URL is logged at every attempt).
	u, err := newU(strings.Replace(b.URL, "tcp://", "tcp://robot:"+secret+"@", 1), mqttconn.Auth{})
	if err == nil {
		t.Error("a broker URL with credentials was accepted")
		poll.Until(t, 10*time.Second, "connect attempts", func() bool { return u.Stats().Publisher.ConnectErrors+u.Stats().Publisher.Connects >= 2 })
		check("stats", u.Stats())
		u.Close()
	} else {
		check("the error", err)
	}
	if _, err := sink.New(sink.Config{Out: t.TempDir(), Broker: strings.Replace(b.URL, "tcp://", "tcp://robot:"+secret+"@", 1)}, log); err == nil {
		t.Error("edged sink accepted a broker URL with credentials")
	} else {
		check("the sink's error", err)
	}

	// A wrong password (which contains the right one), then the right one.
	u, err = newU(b.URL, mqttconn.Auth{Username: "robot", Password: secret + "-old"})
	if err != nil {
		t.Fatal(err)
	}
	mustNil(t, u.Segment(manifest(epID("secret"), false), segment(1)))
	poll.Until(t, 10*time.Second, "refused connects", func() bool { return u.Stats().Publisher.ConnectErrors >= 2 })
	check("stats", u.Stats())
	u.Close()

	s, err := sink.New(sink.Config{Broker: b.URL, Out: t.TempDir(), Auth: mqttconn.Auth{Username: "robot", Password: secret}}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	defer func() { cancel(); <-done; s.Close() }()
	// Subscribed before the robot publishes: the broker keeps nothing
	// for a subscription that does not exist yet.
	poll.Until(t, 10*time.Second, "the sink subscribed", func() bool { return s.Stats().Connects >= 1 })
	u, err = newU(b.URL, mqttconn.Auth{Username: "robot", Password: secret})
	if err != nil {
		t.Fatal(err)
	}
	mustNil(t, u.Segment(manifest(epID("secret"), false), segment(2)))
	poll.Until(t, 10*time.Second, "delivery", func() bool { return s.Stats().Delivered >= 1 })
	check("stats", u.Stats())
	check("sink stats", s.Stats())
	u.Close()
	check("logs", logs.String())
	if !strings.Contains(logs.String(), "refused") {
		t.Errorf("the wrong password left no log line:\n%s", logs.String())
	}
}
