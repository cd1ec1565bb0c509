package pipeline

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestCheckRefusesSharedCameraDirs: two configured cameras whose
// sheets would share a directory are refused by config check (so by
// run, which calls Check), the error naming the later camera's field.
// Both configs of the finding passed: replay then reported 4 sheets
// and the disk held 2, all of one camera.
func TestCheckRefusesSharedCameraDirs(t *testing.T) {
	for _, tc := range []struct {
		name, cameras, want string
	}{
		{"two named top", "[{topic: /a, name: top}, {topic: /b, name: top}]",
			`cameras[1].name: names camera directory "top", which cameras[0] (/a) already uses`},
		{"unnamed topics, one directory", "[{topic: /cam/a/compressed}, {topic: /cam_a/compressed}]",
			`cameras[1].topic: names camera directory "cam_a_compressed", which cameras[0] (/cam/a/compressed) already uses`},
		{"a name and a topic", "[{topic: /x, name: cam_a}, {topic: /cam_a}]", `cameras[1].topic: names camera directory "cam_a"`},
		{"a name after a topic", "[{topic: /cam_a}, {topic: /x, name: cam_a}]", `cameras[1].name:`},
		{"distinct", "[{topic: /cam/a/compressed}, {topic: /cam_a/compressed, name: a2}]", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte("robot_id: r\ndata_dir: " + t.TempDir() + "\ncameras: " + tc.cameras + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			err = Check(cfg)
			if tc.want == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestDiscoveredCameraDirCollision: two discovered topics that map to
// one directory do not mix: the second is left out, with a warning
// and a count, once; the next discovery round of the same topics is
// not a change (capture is not restarted for it).
func TestDiscoveredCameraDirCollision(t *testing.T) {
	var logs bytes.Buffer
	cfg, err := config.Parse([]byte("robot_id: r\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{cfg: *cfg, log: slog.New(slog.NewTextHandler(&logs, nil))}
	cams := []string{"/cam/a/compressed", "/cam_a/compressed", "/wrist/compressed"}
	first, err := p.NewTopology(cfg, &Topology{}, cams, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.closeRings()
	if got := first.CameraTopics(); !slices.Equal(got, []string{"/cam/a/compressed", "/wrist/compressed"}) {
		t.Fatalf("cameras %v, want the second of one directory left out", got)
	}
	if n := p.stats.camerasRefused.Load(); n != 1 {
		t.Fatalf("cameras refused %d, want 1", n)
	}
	if !strings.Contains(logs.String(), "topic=/cam_a/compressed dir=cam_a_compressed camera=/cam/a/compressed") {
		t.Fatalf("no warning naming the topic, the directory and the camera that has it:\n%s", logs.String())
	}
	if !first.Same(cams, nil) {
		t.Fatal("the same discovered topics read as a change: capture would restart every discovery round")
	}
	again, err := p.NewTopology(cfg, first, cams, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.stats.camerasRefused.Load(); n != 1 || len(again.cams) != 2 {
		t.Fatalf("rebuilt: %d cameras, refused counted %d times, want 2 and once", len(again.cams), n)
	}
}
