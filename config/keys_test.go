package config

import (
	"errors"
	"fmt"
	"testing"
)

func TestIsKey(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"robot_id", true},
		{"sheet.tile_width", true},
		{"fsm[0].type", true},
		{"cameras[12].topic", true},
		{"ros2.qos", true},
		{"ros2.msg_dirs", true},
		{"uplink.password_file", true},
		{"ringbuf.max_bytes", false}, // what ringbuf's errors said before they named the key
		{"sheet.TileWidth", false},
		{"fsm.type", false}, // a list's entries are indexed
		{"sheet[0]", false},
		{"", false},
	} {
		if got := IsKey(tc.path); got != tc.want {
			t.Errorf("IsKey(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestValidationProblemsNameKeys: every problem Validate reports, of a
// file wrong in every section config checks itself, is a *FieldError
// naming a key of the file. (pipeline's TestCheckProblemsNameKeys holds
// the components' rules to the same.)
func TestValidationProblemsNameKeys(t *testing.T) {
	for _, yaml := range []string{
		"robot_id: r\ndata_dir: relative\nhttp: {listen: nope}\nreplay: {max_gap: 0s}\n",
		"robot_id: r\nsheet: {tile_width: -1, quality: 101, preset: cheap, interval: 1ms}\n",
		"robot_id: r\nsheet: {columns: 30, rows: 30}\nring: {max_age: 100ms}\n",
		"robot_id: r\ncameras: [{topic: 'cam image'}]\njoints: [{topic: /j/0}]\n",
		"robot_id: r\nros2: {msg_dirs: ['', /a, /a/], qos: {'cam image': sensor_data, /c: nope}}\n",
		"robot_id: r\ndiscovery: {max_cameras: 0, max_joints: 100}\n",
		"robot_id: r\nfsm: [{topic: '', type: magic}]\n",
	} {
		_, err := Parse([]byte(yaml))
		if err == nil {
			t.Errorf("%q: accepted", yaml)
			continue
		}
		for _, p := range ProblemsWithoutKey(err) {
			t.Errorf("%q: %q names no key of the file: return a *FieldError (internal/fielderr) with its YAML path", yaml, p)
		}
	}
}

func TestProblemsWithoutKey(t *testing.T) {
	named := &FieldError{Field: "sheet.quality", Msg: "must be in 1..100"}
	unnamed := errors.New("ringbuf: max_bytes must be >= 1MiB")
	wrongKey := &FieldError{Field: "ringbuf.max_bytes", Msg: "must be >= 1MiB"}
	got := ProblemsWithoutKey(errors.Join(named, fmt.Errorf("ring: %w", errors.Join(unnamed, wrongKey))))
	if len(got) != 2 || got[0] != unnamed || got[1] != wrongKey {
		t.Errorf("got %v, want the two problems that name no key", got)
	}
	if got := ProblemsWithoutKey(&ValidationError{Problems: []error{named}}); len(got) != 0 {
		t.Errorf("got %v for a named problem", got)
	}
}
