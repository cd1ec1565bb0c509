package sink

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// TestServeRefuses: what Serve cannot run with is refused before it
// connects, each error naming the flag to fix.
func TestServeRefuses(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    ServeOptions
		auth mqttconn.Auth
		want string
	}{
		{"no listen", ServeOptions{}, mqttconn.Auth{}, "--listen: give HOST:PORT"},
		{"missing password file", ServeOptions{Listen: "off", PasswordFile: filepath.Join(dir, "nope")}, mqttconn.Auth{}, "--password-file: open "},
		{"profile in a missing directory", ServeOptions{Listen: "off", CPUProfile: filepath.Join(dir, "no", "cpu.pprof")}, mqttconn.Auth{}, "--cpuprofile: "},
		{"taken address", ServeOptions{Listen: "256.0.0.1:0"}, mqttconn.Auth{}, "--listen 256.0.0.1:0"},
		// TLS files are checked at start (not retried by the run loop)
		// and named by the sink's flags, not the robot's uplink keys.
		{"CA file without a certificate", ServeOptions{Listen: "off"}, mqttconn.Auth{CAFile: notPEM}, "--ca-file: "},
		{"missing CA file", ServeOptions{Listen: "off"}, mqttconn.Auth{CAFile: filepath.Join(dir, "nope.pem")}, "--ca-file: open "},
		{"certificate without its key", ServeOptions{Listen: "off"}, mqttconn.Auth{CertFile: notPEM}, "--key-file: required with --cert-file"},
		{"certificate not PEM", ServeOptions{Listen: "off"}, mqttconn.Auth{CertFile: notPEM, KeyFile: notPEM}, "--cert-file: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Broker: "ssl://127.0.0.1:1", Out: filepath.Join(dir, "out"), Auth: tc.auth}
			// A refusal comes at once; a run loop retrying would only
			// end with ctx.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := Serve(ctx, cfg, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestServeRunsUntilCancelled: against a real mosquitto that wants a
// password, Serve reads it from the file, serves /healthz ready once
// subscribed, and when its context ends stops, logs its stats and
// leaves the CPU profile written.
func TestServeRunsUntilCancelled(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{User: "sink", Pass: "s3cret"})
	dir := t.TempDir()
	pw := filepath.Join(dir, "password")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "cpu.pprof")
	var logs bytes.Buffer // read once Serve returned
	o := ServeOptions{Listen: freeAddr(t), PasswordFile: pw, CPUProfile: profile,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	cfg := Config{Broker: b.URL, Out: filepath.Join(dir, "out")}
	cfg.Auth.Username = "sink"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, cfg, o) }()

	poll.Until(t, 15*time.Second, "/healthz ready with the password from the file", func() bool {
		r, err := http.Get("http://" + o.Listen + "/healthz")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if !strings.Contains(logs.String(), "sink: stopped") {
		t.Errorf("no stats logged on stopping:\n%s", logs.String())
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile: %v", err)
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestHandler: /healthz is 503 with the reason while the sink is not
// subscribed, and /metrics has the sink's counters.
func TestHandler(t *testing.T) {
	s, err := New(Config{Out: t.TempDir()}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/healthz", http.StatusServiceUnavailable, "not subscribed at the broker"},
		{"/metrics", http.StatusOK, "\nedged_sink_connected 0\n"},
	} {
		r, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tc.code || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %q, want %d with %q", tc.path, r.StatusCode, body, tc.code, tc.want)
		}
	}
	var h struct{ Ready bool }
	r, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(&h); err != nil || h.Ready {
		t.Errorf("/healthz of an unsubscribed sink: ready %v, %v", h.Ready, err)
	}
}
