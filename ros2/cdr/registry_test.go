package cdr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/bag/rosbag2"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/rosmsg"
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

// TestParseRepeatedBlock: a nested block repeated with other text is an
// error naming the type (before rosmsg's one rule the first block won
// silently, so a message could decode with the wrong layout); one
// repeated with the same text counts once, as rosbag2 writes them.
func TestParseRepeatedBlock(t *testing.T) {
	sep := strings.Repeat("=", 80) + "\n"
	for _, tc := range []struct {
		name, text string
		wantErr    string
	}{
		{"same text", "Leaf a\nLeaf b\n" + sep + "MSG: test_msgs/Leaf\nint32 x\n" + sep + "MSG: test_msgs/Leaf\nint32 x", ""},
		{"other text", "Leaf a\n" + sep + "MSG: test_msgs/Leaf\nint32 x\n" + sep + "MSG: test_msgs/Leaf\nfloat64 x\n",
			"test_msgs/msg/Leaf defined twice with different text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("test_msgs/msg/T", tc.text)
			if tc.wantErr == "" {
				if err != nil || d.Fields[0].Msg.Fields[0].Kind != rosmsg.KindInt32 {
					t.Fatalf("err %v", err)
				}
				return
			}
			if !errors.Is(err, ErrDefinition) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want ErrDefinition with %q", err, tc.wantErr)
			}
		})
	}
}

// TestParseRecordedDefinitions: every definition the ROS 2 sample MCAP
// bags hold parses, among them the talker's
// rcl_interfaces/msg/ParameterEvent, whose rosbag2 writer repeats the
// Parameter and ParameterValue blocks. (The .db3 samples hold one-line
// placeholders, not definitions: see Registry.)
func TestParseRecordedDefinitions(t *testing.T) {
	dir := sampledata.Path(t, "ros2")
	bags, _ := filepath.Glob(filepath.Join(dir, "*", "*.mcap"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.mcap"))
	bags = append(bags, more...)
	if len(bags) == 0 {
		t.Skipf("no rosbag2 bags under %s", dir)
	}
	repeated := 0 // definitions with a repeated block
	for _, m := range bags {
		r, err := rosbag2.Open(filepath.Dir(m), rosbag2.Options{})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Dir(m), err)
		}
		for _, c := range r.Connections() {
			if _, err := Parse(c.Type, c.MessageDefinition); err != nil {
				t.Errorf("%s %s: %v", filepath.Base(filepath.Dir(m)), c.Type, err)
			}
			if strings.Count(c.MessageDefinition, "MSG: rcl_interfaces/Parameter\n") > 1 {
				repeated++
			}
		}
		r.Close()
	}
	if repeated == 0 {
		t.Error("no sample definition repeats a block: the talker's ParameterEvent should")
	}
}
