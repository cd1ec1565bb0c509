package packaging

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// files the package installs, besides directories.
var packaged = []string{
	"etc/edged/edged.yaml",
	"lib/systemd/system/edged.service",
	"usr/bin/edged",
	"usr/share/doc/edged/changelog.gz",
	"usr/share/doc/edged/copyright",
	"usr/share/doc/edged/deploy.md.gz",
	"usr/share/lintian/overrides/edged",
	"usr/share/man/man1/edged.1.gz",
}

// buildDeb builds edged from this checkout as make deb does and packages
// it with scripts/deb.sh for this machine's architecture; it skips where
// dpkg-dev is missing or Go and dpkg disagree on the architecture.
func buildDeb(t *testing.T) (deb, arch string) {
	t.Helper()
	for _, tool := range []string{"dpkg-deb", "dpkg-shlibdeps", "dpkg-architecture"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install dpkg-dev; make deb installs it): not building the package", tool)
		}
	}
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Fatal(err)
	}
	arch = strings.TrimSpace(string(out))
	if arch != runtime.GOARCH {
		t.Skipf("dpkg's architecture %s is not Go's %s", arch, runtime.GOARCH)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "edged")
	if out, err := exec.Command("../scripts/deb.sh", "build", arch, bin).CombinedOutput(); err != nil {
		t.Fatalf("scripts/deb.sh build: %v\n%s", err, out)
	}
	cmd := exec.Command("../scripts/deb.sh", "package", arch, bin, filepath.Join(dir, "out"))
	cmd.Stderr = os.Stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("scripts/deb.sh package: %v", err)
	}
	return strings.TrimSpace(string(out)), arch
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).Output()
	if err != nil {
		t.Fatalf("dpkg-deb %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestPackage builds the package and checks its control fields, its
// files, its unit (verified by systemd-analyze), its config and binary,
// then lints it.
func TestPackage(t *testing.T) {
	deb, arch := buildDeb(t)
	control := dpkgDeb(t, "--field", deb)
	for _, want := range []string{"Package: edged\n", "Architecture: " + arch + "\n", "libturbojpeg0 (>= ", "libc6 (>= ", ", adduser\n"} {
		if !strings.Contains(control, want) {
			t.Errorf("control lacks %q:\n%s", want, control)
		}
	}
	if p := regexp.MustCompile(`@[A-Z_]+@`).FindString(control); p != "" {
		t.Errorf("control has the unfilled placeholder %s:\n%s", p, control)
	}

	var files []string
	for _, line := range strings.Split(dpkgDeb(t, "--contents", deb), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && !strings.HasPrefix(f[0], "d") {
			if f[1] != "root/root" {
				t.Errorf("%s is owned by %s", f[5], f[1])
			}
			files = append(files, strings.TrimPrefix(f[5], "./"))
		}
	}
	sort.Strings(files)
	if !slices.Equal(files, packaged) {
		t.Errorf("package holds\n  %q\nwant\n  %q", files, packaged)
	}

	root := t.TempDir()
	dpkgDeb(t, "--extract", deb, root)
	ctl := t.TempDir()
	dpkgDeb(t, "--control", deb, ctl)
	if got, want := read(t, filepath.Join(ctl, "conffiles")), read(t, "debian/conffiles"); got != want {
		t.Errorf("conffiles %q, want %q", got, want)
	}
	if read(t, filepath.Join(root, "etc/edged/edged.yaml")) != read(t, "../systemd/edged.yaml") {
		t.Error("the packaged config is not systemd/edged.yaml")
	}
	checkUnit(t, root)

	out, err := exec.Command(filepath.Join(root, "usr/bin/edged"), "version", "--json").Output()
	if err != nil {
		t.Fatalf("packaged edged version: %v", err)
	}
	var v struct {
		JPEG struct{ Linked bool } `json:"jpeg"`
	}
	if err := json.Unmarshal(out, &v); err != nil || !v.JPEG.Linked {
		t.Errorf("packaged edged version --json: %v\n%s", err, out)
	}

	if _, err := exec.LookPath("lintian"); err != nil {
		t.Skip("lintian not installed (apt-get install lintian; make deb installs it): package not linted")
	}
	if out, err := exec.Command("lintian", "--fail-on", "error,warning,info", "--info", deb).CombinedOutput(); err != nil {
		t.Fatalf("lintian: %v\n%s", err, out)
	}
}

// checkUnit: the packaged unit is systemd/edged.service with the binary
// at /usr/bin/edged, and systemd-analyze verifies it with the packaged
// binary.
func checkUnit(t *testing.T, root string) {
	t.Helper()
	packagedUnit := read(t, filepath.Join(root, "lib/systemd/system/edged.service"))
	source := strings.Split(read(t, "../systemd/edged.service"), "\n")
	lines := strings.Split(packagedUnit, "\n")
	if len(lines) != len(source) {
		t.Fatalf("packaged unit has %d lines, systemd/edged.service %d", len(lines), len(source))
	}
	for i, line := range lines {
		want := strings.ReplaceAll(source[i], "/usr/local/bin/edged", "/usr/bin/edged")
		if line != want && !strings.HasPrefix(line, "#") {
			t.Errorf("unit line %d: %q, want %q", i+1, line, want)
		}
	}
	if strings.Contains(packagedUnit, "/usr/local") {
		t.Error("packaged unit refers to /usr/local")
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze not installed (apt-get install systemd): unit not verified")
		return
	}
	// The unit, pointed at the packaged binary (verify checks that it
	// exists and is executable); installed, it is /usr/bin/edged.
	path := filepath.Join(t.TempDir(), "edged.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(packagedUnit, "/usr/bin/edged", filepath.Join(root, "usr/bin/edged"))), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
