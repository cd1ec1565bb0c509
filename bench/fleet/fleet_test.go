package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// fleetSetup skips a test that plays a fleet (for about what) where
// mosquitto is missing or under -short, and builds edged into a
// temporary directory: it returns the directory and the binary.
func fleetSetup(t *testing.T, what string) (dir, bin string) {
	t.Helper()
	if _, err := exec.LookPath("mosquitto"); err != nil {
		t.Skip("mosquitto is not installed: run make deps")
	}
	if testing.Short() {
		t.Skip(what)
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "edged")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/edged").CombinedOutput(); err != nil {
		t.Fatalf("go build edged: %v\n%s", err, out)
	}
	return dir, bin
}

// TestTLSFleetArrivesOnce plays a small fleet as it is deployed: mutual
// TLS with a certificate per robot, the broker taking each CN as the
// username and applying the repository's ACL, two sinks of one group
// with their own identity. Every episode must arrive complete exactly
// once (the ACL letting the sinks read and acknowledge, each robot
// publish its own topics and hear its own ack).
func TestTLSFleetArrivesOnce(t *testing.T) {
	dir, bin := fleetSetup(t, "plays a fleet for about 30 s")
	o := options{robots: 6, sinks: 2, cameras: 2, episode: 15 * time.Second, edged: bin, tmp: dir,
		maxPayload: 64 << 10, reconnect: 0.5, timeout: time.Minute, tls: true, acl: filepath.Join("..", "..", aclPath)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.TLS || r.Episodes != o.robots || r.Lost+r.Duplicated+r.Corrupt != 0 {
		t.Fatalf("want %d episodes over TLS, none lost, duplicated or corrupt; got %+v", o.robots, r)
	}
	// Per robot: 2 manifests, a segment, and per camera a sheet and a snippet.
	if want := int64(o.robots * (2 + 1 + 2*o.cameras)); r.Messages != want {
		t.Errorf("messages: got %d, want %d", r.Messages, want)
	}
	if r.SustainedPerS <= 0 || len(r.SustainedPerSink) != o.sinks {
		t.Errorf("no sustained rate from the sinks' /metrics: %v %v", r.SustainedPerS, r.SustainedPerSink)
	}
	if _, err := os.Stat(o.acl); err != nil {
		t.Fatal(err)
	}
}
