package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCompareOptions(t *testing.T) {
	ok := options{sinks: 2}
	tests := []struct {
		name string
		mod  func(o *options)
		ok   bool
	}{
		{"two sinks", func(*options) {}, true},
		{"one sink", func(o *options) { o.sinks = 1 }, false},
		{"an external broker", func(o *options) { o.broker = "tcp://127.0.0.1:1883" }, false},
		{"a shared output", func(o *options) { o.out = "/tmp/x" }, false},
	}
	for _, tt := range tests {
		o := ok
		tt.mod(&o)
		if err := compareOptions(o); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// TestCompareRunsBothFleets: -compare plays a one-sink fleet and a
// two-sink fleet at once, each on its own broker, both arrive whole, and
// the ratios come from both runs' sustained rates.
func TestCompareRunsBothFleets(t *testing.T) {
	dir, bin := fleetSetup(t, "plays two fleets for about 20 s")
	o := options{robots: 4, sinks: 2, cameras: 1, episode: 10 * time.Second, edged: bin, tmp: dir,
		maxPayload: 64 << 10, timeout: time.Minute, compare: true, jsonOut: filepath.Join(dir, "c.json")}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if code := compare(ctx, o); code != 0 {
		t.Fatalf("compare exited %d", code)
	}
	b, err := os.ReadFile(o.jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var c comparison
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Reference == nil || c.Group == nil || c.Reference.Sinks != 1 || c.Group.Sinks != 2 ||
		c.Reference.Episodes != o.robots || c.Group.Episodes != o.robots || c.Sustained <= 0 || c.WholeRun <= 0 {
		t.Fatalf("comparison %s", b)
	}
}
