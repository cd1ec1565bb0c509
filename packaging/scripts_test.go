package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stand-ins for the tools the maintainer scripts call: each records its
// command line; getent finds the edged user when $EDGED_USER_EXISTS is 1.
var standIns = map[string]string{
	"adduser":            "",
	"deb-systemd-helper": "",
	"deb-systemd-invoke": "",
	"systemctl":          "",
	"getent":             `[ "$EDGED_USER_EXISTS" = 1 ] || exit 2; echo edged:x:999:999::/var/lib/edged:/usr/sbin/nologin` + "\n",
}

// runScript runs a maintainer script with stand-ins for the tools it
// calls, and with systemd running or not (the script's /run/systemd/system
// test pointed at a directory that exists or not). It returns the
// commands the script ran.
func runScript(t *testing.T, name string, systemd, userExists bool, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	for tool, body := range standIns {
		sh := "#!/bin/sh\necho \"" + tool + " $*\" >>\"$STANDIN_LOG\"\n" + body
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run-systemd-system")
	if systemd {
		if err := os.Mkdir(run, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.ReplaceAll(read(t, filepath.Join("debian", name)), "/run/systemd/system", run)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	exists := "0"
	if userExists {
		exists = "1"
	}
	cmd := exec.Command(path, args...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "STANDIN_LOG=" + log, "EDGED_USER_EXISTS=" + exists}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestMaintainerScripts(t *testing.T) {
	const (
		adduser = "adduser --system --group --quiet --home /var/lib/edged --no-create-home edged"
		getent  = "getent passwd edged"
		state   = "deb-systemd-helper update-state edged.service"
		reload  = "systemctl --system daemon-reload"
		restart = "deb-systemd-invoke restart edged.service"
		stop    = "deb-systemd-invoke stop edged.service"
		purge   = "deb-systemd-helper purge edged.service"
	)
	for _, c := range []struct {
		name       string
		script     string
		args       []string
		systemd    bool
		userExists bool
		want       []string
	}{
		// A fresh install creates the user and does not enable or start edged.
		{"install", "postinst", []string{"configure", ""}, true, false, []string{getent, adduser, state, reload}},
		{"install without systemd", "postinst", []string{"configure", ""}, false, false, []string{getent, adduser, state}},
		// Again, or over make install's user: the user is kept.
		{"reinstall", "postinst", []string{"configure", ""}, true, true, []string{getent, state, reload}},
		// An upgrade restarts edged (deb-systemd-invoke: only where it is enabled or running).
		{"upgrade", "postinst", []string{"configure", "0.0~git1.abc"}, true, true, []string{getent, state, reload, restart}},
		{"upgrade without systemd", "postinst", []string{"configure", "0.0~git1.abc"}, false, true, []string{getent, state}},
		{"abort-upgrade", "postinst", []string{"abort-upgrade", "0.0~git1.abc"}, true, true, nil},
		{"remove stops", "prerm", []string{"remove"}, true, true, []string{stop}},
		{"remove without systemd", "prerm", []string{"remove"}, false, true, nil},
		{"upgrade keeps running", "prerm", []string{"upgrade", "0.0~git2.def"}, true, true, nil},
		{"removed", "postrm", []string{"remove"}, true, true, []string{reload}},
		{"purged", "postrm", []string{"purge"}, true, true, []string{reload, purge}},
		{"purged without systemd", "postrm", []string{"purge"}, false, true, []string{purge}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runScript(t, c.script, c.systemd, c.userExists, c.args...)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s %q ran\n  %q\nwant\n  %q", c.script, c.args, got, c.want)
			}
		})
	}
}
