package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRunCPUProfileOnSIGTERM: `edged run --cpuprofile FILE` against a
// real master, with http.pprof on: /debug/pprof/ answers on
// http.listen, and after SIGTERM (exit 0) FILE is a CPU profile go tool
// pprof reads.
func TestRunCPUProfileOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster; skipped with -short")
	}
	m := rostest.StartMaster(t)
	tmp := t.TempDir()
	listen := fmt.Sprintf("127.0.0.1:%d", rostest.FreePort(t))
	cfg := filepath.Join(tmp, "edged.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {host: 127.0.0.1}\n"+
		"http: {listen: %q, pprof: true}\ncameras: [{topic: cam/compressed}]\n", filepath.Join(tmp, "data"), listen)), 0o644))
	profile := filepath.Join(tmp, "cpu.pprof")
	run := rostest.Start(t, m.Env(), edgedBin, "run", "--config", cfg, "--cpuprofile", profile)
	rostest.WaitFor(t, 30*time.Second, "/debug/pprof/ on http.listen", func() bool {
		r, err := http.Get("http://" + listen + "/debug/pprof/")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	must(t, syscall.Kill(run.Pid(), syscall.SIGTERM))
	if err := run.Wait(30 * time.Second); err != nil {
		t.Fatalf("edged run after SIGTERM: %v\n%s", err, run.Output())
	}
	out, err := exec.Command("go", "tool", "pprof", "-raw", profile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PeriodType: cpu nanoseconds") {
		t.Fatalf("go tool pprof -raw %s: %v\n%.2000s", profile, err, out)
	}
}

// TestRunRefusesAnUnwritableProfile: a --cpuprofile that cannot be
// created ends edged run at once (status 1), naming the flag.
func TestRunRefusesAnUnwritableProfile(t *testing.T) {
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "edged.yaml")
	must(t, os.WriteFile(cfg, []byte("robot_id: r1\ndata_dir: "+filepath.Join(tmp, "data")+"\nhttp: {listen: \"off\"}\n"), 0o644))
	out := edged(t, false, "run", "--config", cfg, "--cpuprofile", filepath.Join(tmp, "no", "cpu.pprof"))
	if !strings.Contains(out, "--cpuprofile: ") || !strings.Contains(out, "no such file or directory") {
		t.Fatalf("edged run with an unwritable --cpuprofile:\n%s", out)
	}
}
