package cdr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeMsgs writes files (path under dir -> text) and returns dir.
func writeMsgs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	good := writeMsgs(t, map[string]string{
		"robot_msgs/msg/Mode.msg":   "string name\nint32 level\n",
		"robot_msgs/msg/Status.msg": "Mode mode\nbuiltin_interfaces/Time stamp\n",
		"robot_msgs/README.md":      "not a definition",
	})
	override := writeMsgs(t, map[string]string{"robot_msgs/msg/Mode.msg": "string name\n"})
	bad := writeMsgs(t, map[string]string{"robot_msgs/msg/Bad.msg": "int32[ x\n"})
	file := filepath.Join(good, "robot_msgs/msg/Mode.msg")
	for _, tc := range []struct {
		name    string
		dirs    []string
		typ     string
		fields  int    // of typ, when no error
		wantErr string // substring
	}{
		{"bundled only", nil, "std_msgs/msg/String", 1, ""},
		{"user type", []string{good}, "robot_msgs/msg/Mode", 2, ""},
		{"user type nesting a user and a bundled type", []string{good}, "robot_msgs/msg/Status", 2, ""},
		{"later directory wins", []string{good, override}, "robot_msgs/msg/Mode", 1, ""},
		{"unknown type", []string{good}, "robot_msgs/msg/Nope", 0, "no definition of robot_msgs/msg/Nope"},
		{"missing directory", []string{filepath.Join(good, "nope")}, "", 0, "no such file"},
		{"a file, not a directory", []string{file}, "", 0, "not a directory"},
		{"a file that does not parse", []string{bad}, "", 0, "Bad.msg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Load(tc.dirs...)
			if err == nil && tc.typ != "" {
				var d *Definition
				if d, err = r.Parse(tc.typ, ""); err == nil && len(d.Fields) != tc.fields {
					t.Fatalf("%s: %d fields, want %d", tc.typ, len(d.Fields), tc.fields)
				}
			}
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// A user's type replaces a recording's text for it (a placeholder such
// as the talker .db3's "uint8 level"); a bundled type does not.
func TestUserTypeWinsOverRecordingText(t *testing.T) {
	dir := writeMsgs(t, map[string]string{"rcl_interfaces/msg/Log.msg": "uint8 level\nstring name\nstring msg\n"})
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		reg    *Registry
		typ    string
		text   string
		fields int
	}{
		{r, "rcl_interfaces/msg/Log", "uint8 level", 3},              // the user's
		{Bundled(), "rcl_interfaces/msg/Log", "uint8 level", 1},      // the recording's
		{r, "std_msgs/msg/String", "string data\nstring extra\n", 2}, // bundled: the recording's
		{r, "rcl_interfaces/msg/Log", "", 3},                         // no text: the user's
		{r, "std_msgs/msg/Header", "", 2},                            // no text: bundled
	} {
		d, err := tc.reg.Parse(tc.typ, tc.text)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.typ, tc.text, err)
		}
		if len(d.Fields) != tc.fields {
			t.Errorf("%s %q: %d fields, want %d", tc.typ, tc.text, len(d.Fields), tc.fields)
		}
	}
}
