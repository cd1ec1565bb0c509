package episode

import (
	"strings"
	"testing"
	"time"
)

func TestCameraDir(t *testing.T) {
	long := "/" + strings.Repeat("very_long_camera_name/", 10) + "image"
	for _, tc := range []struct{ topic, want string }{
		{"/camera/color/image_raw/compressed", "camera_color_image_raw_compressed"},
		{"camera_color_image_raw_compressed", "camera_color_image_raw_compressed"}, // idempotent
		{"top", "top"},
		{"/cam 1/ïmage", "cam_1__mage"},
		{"/", "camera"},
		{"..", "camera"},
		{"/../etc", "etc"},
	} {
		if got := CameraDir(tc.topic); got != tc.want {
			t.Errorf("CameraDir(%q) = %q, want %q", tc.topic, got, tc.want)
		}
	}
	a, b := CameraDir(long), CameraDir(long+"2")
	if len(a) > maxCameraDir || a == b || CameraDir(a) != a {
		t.Errorf("long topics: %q and %q (max %d, idempotent)", a, b, maxCameraDir)
	}
}

func TestLayoutPaths(t *testing.T) {
	ep := "/d/episodes/arm-01-20231114T221320.000Z"
	for got, want := range map[string]string{
		SheetDir(ep, "/cam/a"):       ep + "/sheets/cam_a",
		LabelDir(ep, "/cam/a"):       ep + "/labels/cam_a",
		SnippetPath(ep, "/cam/a", 3): ep + "/snippets/cam_a/sheet-0003.msgpack.zst",
		SheetName(12):                "sheet-0012",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestIDRule: which ids belong to which robot. Ids of two robots never
// overlap, even when one robot's name starts like another's id.
func TestIDRule(t *testing.T) {
	for _, tc := range []struct{ id, owner string }{ // owner "": no robot's
		{"arm-01-20231114T221320.000Z", "arm-01"},
		{"arm-01-20231114T221320.000Z-2", "arm-01"},
		{"arm-01-20231114T221320.000Z-pick_cups", "arm-01"},
		{"arm-01-20231114T221320.000Z-session", "arm-01"},
		{"arm-20231114T221320.000Z-20231115T000000.000Z", "arm"}, // the first time part decides
		{"20231114T221320.000Z", ""},                             // no robot
		{"-20231114T221320.000Z", ""},
		{"session-20231114T221320Z", ""}, // what the daemon shipped for sessions before
		{"ep1", ""},
		{"status.json", ""},
		{".sink", ""},
		{"../arm-01-20231114T221320.000Z", ""},
		{"arm-01/x-20231114T221320.000Z", ""},
		{"arm:01-20231114T221320.000Z", ""},
		{"arm-01-20231114T221320.000Zx", ""},
		{"arm-01-" + strings.Repeat("x", 200) + "-20231114T221320.000Z", ""},
	} {
		owner, ok := RobotOf(tc.id)
		if ok != (tc.owner != "") || owner != tc.owner {
			t.Errorf("RobotOf(%q) = %q, %v; want %q", tc.id, owner, ok, tc.owner)
		}
		if err := CheckID(tc.owner, tc.id); (err == nil) != (tc.owner != "") {
			t.Errorf("CheckID(%q, %q) = %v", tc.owner, tc.id, err)
		}
	}
	for _, tc := range []struct{ robot, id string }{
		{"arm-02", "arm-01-20231114T221320.000Z"},
		{"arm", "arm-01-20231114T221320.000Z"},
		{"arm-01", "arm-20231114T221320.000Z"},
		{"session", "session-20231114T221320Z"},
	} {
		if err := CheckID(tc.robot, tc.id); err == nil {
			t.Errorf("%s accepted as an id of %s", tc.id, tc.robot)
		}
	}
}

func TestIsSession(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	for _, c := range []struct {
		id   string
		want bool
	}{
		{NewID("arm", start, SessionName), true},
		{NewID("arm", start, SessionName) + "-2", true},
		{NewID("arm", start, ""), false},
		{NewID("arm", start, "pick"), false},
		{NewID("arm", start, "sessions"), false},
		{NewID("arm", start, SessionName) + "-x", false},
		{NewID("arm-session", start, "pick"), false},
		{"session", false},
	} {
		if got := IsSession(c.id); got != c.want {
			t.Errorf("IsSession(%q) = %v, want %v", c.id, got, c.want)
		}
	}
}

// TestSplitID: recovery takes a manifest's robot and start from the id
// NewID made, by the one layout of an id.
func TestSplitID(t *testing.T) {
	start := time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC)
	for _, tc := range []struct {
		id, robot string
		ok        bool
	}{
		{NewID("arm-01", start, ""), "arm-01", true},
		{NewID("arm-01", start, "pick-20250101T000000.000Z") + "-2", "arm-01", true},
		{NewID("", start, "x"), "", true},
		{"arm-01-notatime", "", false},
		{"", "", false},
	} {
		robot, got, ok := splitID(tc.id)
		if ok != tc.ok || robot != tc.robot || (ok && !got.Equal(start)) {
			t.Errorf("splitID(%q) = %q, %v, %v; want %q, %v, %v", tc.id, robot, got, ok, tc.robot, start, tc.ok)
		}
	}
}
