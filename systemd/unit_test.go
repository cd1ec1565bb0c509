package systemd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// unitForAnalysis writes the unit with its binary replaced by /bin/true,
// since systemd-analyze checks that ExecStart exists and is executable.
func unitForAnalysis(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd)")
	}
	b, err := os.ReadFile("edged.service")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "edged.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/edged", "/bin/true")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUnitVerifies(t *testing.T) {
	out, err := exec.Command("systemd-analyze", "verify", unitForAnalysis(t)).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

func TestUnitExposure(t *testing.T) {
	out, err := exec.Command("systemd-analyze", "security", "--offline=true", "--no-pager", unitForAnalysis(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for edged.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	level, _ := strconv.ParseFloat(string(m[1]), 64)
	if level > 2.5 {
		t.Fatalf("exposure %.1f, want <= 2.5:\n%s", level, out)
	}
	t.Logf("exposure %.1f", level)
}

func TestUnitIsNotifyWithWatchdog(t *testing.T) {
	b, err := os.ReadFile("edged.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=notify", "WatchdogSec=", "Restart=on-failure", "RestartPreventExitStatus=3", "StateDirectory=edged", "User=edged"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("edged.service lacks %s", want)
		}
	}
}
