//go:build cgo && !purego

package daemon

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// TestRunROS2RecordsAnEpisode: edged run with ros.version 2 records one
// episode from a live ROS 2 graph: a std_msgs/String FSM and a
// best-effort sensor_msgs/CompressedImage camera, both C publishers on
// Cyclone DDS with idlc-generated types, on a loopback domain of the
// test's own.
func TestRunROS2RecordsAnEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with Cyclone DDS publishers; skipped with -short")
	}
	tools := ddstest.Build(t)
	t.Setenv("CYCLONEDDS_URI", ddstest.LoopbackURI())
	domain := ddstest.Domain()
	tmp := t.TempDir()
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 320, 240)), nil); err != nil {
		t.Fatal(err)
	}
	frame := filepath.Join(tmp, "frame.jpg")
	if err := os.WriteFile(frame, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: ros2-01
data_dir: %s
ros: {version: 2}
ros2: {domain_id: %d}
cameras: [{topic: /cam/compressed, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
http: {listen: "off"}
`, filepath.Join(tmp, "data"), domain)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-runErr; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	cam := ddstest.Start(t, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-b", "-f", frame, "-n", "400", "-p", "25")
	cam.WaitLine(t, "ready")
	fsm := ddstest.Start(t, tools.Pub, domain, "-t", "/task/state", "-w", "-n", "5", "-p", "1500", "-v", "IDLE,reach,grasp,IDLE,IDLE")
	fsm.WaitLine(t, "done")
	store := filepath.Join(tmp, "data", "episodes")
	var ep *episode.Episode
	poll.Until(t, 30*time.Second, "one closed episode", func() bool {
		ms, err := episode.List(store)
		if err != nil || len(ms) != 1 {
			return false
		}
		ep, err = episode.Load(store, ms[0].ID)
		return err == nil && len(ep.Segments) >= 2
	})
	if ep.Segments[0].Label != "reach" || ep.Segments[1].Label != "grasp" {
		t.Errorf("segments %+v", ep.Segments)
	}
	if st := d.capt.Load().Stats(); len(st) < 2 || st[0].Events == 0 {
		t.Errorf("capture stats %+v: want camera frames", st)
	}
}
