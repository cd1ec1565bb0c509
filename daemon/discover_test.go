package daemon

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\nhttp: {listen: %q}\n",
		filepath.Join(dir, "data"), m.URI, listen))
	_, run := runDaemon(t, cfg, Options{RediscoverEvery: 200 * time.Millisecond})
	health := func() (int, string) {
		if returned, err := run.wait(0); returned {
			t.Fatalf("edged run returned: %v", err)
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
