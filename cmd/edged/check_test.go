package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
)

// runRefuses is what `edged run` does with a config before it starts
// anything: load it, then daemon.New.
func runRefuses(path string) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	_, err = daemon.New(cfg, daemon.Options{})
	return err
}

// checkRefuses runs `edged config check FILE` in process.
func checkRefuses(path string) (string, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"config", "check", path})
	err := root.Execute()
	return out.String(), err
}

// TestConfigCheckRefusesWhatRunRefuses: every config `edged run` refuses
// before starting, `edged config check` refuses too, naming the same
// field (issue 10: robot_id "..", missing ca_file/password_file, a
// broker without a port, the 15 GB sheet; issue 15: the 30x30 recipe).
func TestConfigCheckRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	base := "data_dir: " + dir + "\nhttp: {listen: 'off'}\n"
	for _, tc := range []struct{ name, yaml, field string }{
		{"robot id ..", "robot_id: '..'\n", "robot_id"},
		{"robot id dot", "robot_id: .hidden\n", "robot_id"},
		{"missing ca_file", "robot_id: r\nuplink: {broker: 'ssl://b:8883', ca_file: " + missing + "}\n", "uplink.ca_file"},
		{"missing password_file", "robot_id: r\nuplink: {broker: 'tcp://b:1883', username: u, password_file: " + missing + "}\n", "uplink.password_file"},
		{"ca_file is a directory", "robot_id: r\nuplink: {broker: 'ssl://b:8883', ca_file: " + dir + "}\n", "uplink.ca_file"},
		{"ca_file not PEM", "robot_id: r\nuplink: {broker: 'ssl://b:8883', ca_file: " + pw + "}\n", "uplink.ca_file"},
		{"broker without port", "robot_id: r\nuplink: {broker: 'tcp://b'}\n", "uplink.broker"},
		{"node name not a ROS name", "robot_id: r\nros: {node_name: /my-node}\n", "ros.node_name"},
		{"sheet 15 GB", "robot_id: r\nsheet: {tile_width: 4096, columns: 20, rows: 20}\n", "sheet."},
		{"sheet 30x30", "robot_id: r\nsheet: {columns: 30, rows: 30}\n", "sheet.rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "edged.yaml")
			if err := os.WriteFile(path, []byte(base+tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			runErr := runRefuses(path)
			if runErr == nil || !strings.Contains(runErr.Error(), tc.field) {
				t.Fatalf("run: got %v, want a refusal naming %s", runErr, tc.field)
			}
			out, err := checkRefuses(path)
			if err == nil {
				t.Fatalf("config check accepted what run refuses (%v):\n%s", runErr, out)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("config check: %v, want it to name %s", err, tc.field)
			}
		})
	}
	// And a good config passes both.
	path := filepath.Join(dir, "good.yaml")
	good := base + "robot_id: r\nuplink: {broker: 'tcp://b:1883', username: u, password_file: " + pw + "}\n"
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := checkRefuses(path); err != nil {
		t.Fatalf("config check refused a good config: %v\n%s", err, out)
	}
	if err := runRefuses(path); err != nil {
		t.Fatalf("run refused a good config: %v", err)
	}
}
