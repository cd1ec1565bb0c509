package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRunWaitsForTopicsToAppear: in discovery mode (no topics
// configured) with nothing published yet, edged run stays up, reports
// not ready, and starts capturing once a camera is published (the
// finding: it exited at once with "no topics to capture").
func TestRunWaitsForTopicsToAppear(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	m := rostest.StartMaster(t)
	rostest.RequireRospy(t)
	dir := t.TempDir()
	listen := fmt.Sprintf("127.0.0.1:%d", rostest.FreePort(t))
	cfg, err := config.Parse([]byte(fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\nhttp: {listen: %q}\n",
		filepath.Join(dir, "data"), m.URI, listen)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RediscoverEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- d.Run(ctx) }()
	defer func() {
		cancel()
		<-runErr
	}()
	health := func() (int, string) {
		select {
		case err := <-runErr:
			runErr <- err
			t.Fatalf("edged run returned: %v", err)
		default:
		}
		resp, err := http.Get("http://" + listen + "/healthz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	rostest.WaitFor(t, 30*time.Second, "/healthz to say not ready: capture not started", func() bool {
		code, body := health()
		return code == http.StatusServiceUnavailable && strings.Contains(body, "capture not started")
	})
	m.Publish("--name", "cam_pub", "--topic", "/cam/compressed", "--kind", "compressed", "--rate", "10")
	rostest.WaitFor(t, 30*time.Second, "/healthz ready once a camera is published", func() bool {
		code, _ := health()
		return code == http.StatusOK
	})
}

// Discovery fills only the roles the config leaves empty, within
// discovery's caps, keeping the topics already captured (a newcomer
// sorting first cannot push out the robot's camera), and not at all
// when discovery.enabled is false. ROS1 and ROS 2 share it. Every
// published camera was taken.
func TestDiscoveredCapped(t *testing.T) {
	published := []capture.TopicType{{Topic: "/wrist/image/compressed", Type: "sensor_msgs/CompressedImage"},
		{Topic: "/joint_states", Type: "sensor_msgs/JointState"}}
	for i := range 10 {
		published = append(published, capture.TopicType{Topic: fmt.Sprintf("/a/flood_%d", i), Type: "sensor_msgs/msg/CompressedImage"})
	}
	cases := []struct {
		name        string
		disc        config.Discovery
		cams, cur   []string
		wantCams    []string
		wantJoints  []string
		wantRefused uint64
	}{
		{"capped, sorted", config.Discovery{Enabled: true, MaxCameras: 2, MaxJoints: 4}, nil, nil,
			[]string{"/a/flood_0", "/a/flood_1"}, []string{"/joint_states"}, 9},
		{"the captured camera keeps its place", config.Discovery{Enabled: true, MaxCameras: 2, MaxJoints: 4}, nil,
			[]string{"/wrist/image/compressed"}, []string{"/a/flood_0", "/wrist/image/compressed"}, []string{"/joint_states"}, 9},
		{"configured cameras are not capped", config.Discovery{Enabled: true, MaxCameras: 1, MaxJoints: 1},
			[]string{"/x", "/y"}, nil, []string{"/x", "/y"}, []string{"/joint_states"}, 0},
		{"disabled", config.Discovery{Enabled: false, MaxCameras: 4, MaxJoints: 4}, nil, nil, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &Daemon{}
			cfg := &config.Config{Discovery: c.disc}
			cur := &topology{wanted: c.cur}
			for range 3 { // rounds: a refusal is counted once
				cams, joints := d.discovered(cfg, cur, c.cams, nil, published)
				if !slices.Equal(cams, c.wantCams) || !slices.Equal(joints, c.wantJoints) {
					t.Fatalf("cameras %v joints %v, want %v %v", cams, joints, c.wantCams, c.wantJoints)
				}
			}
			if n := d.discovery.total.Load(); n != c.wantRefused {
				t.Errorf("refused %d, want %d", n, c.wantRefused)
			}
		})
	}
}
