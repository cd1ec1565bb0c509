package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// unit is systemd/edged.service as key to values, in order.
func unit(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && !strings.HasPrefix(k, "#") {
			m[k] = append(m[k], v)
		}
	}
	return m
}

func one(t *testing.T, u map[string][]string, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("edged.service: want one %s=, have %q", key, u[key])
	}
	return u[key][0]
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAgreesWithUnitAndConfig: the user the postinst creates is the one
// the unit runs as, with the unit's state directory as its home, which is
// where the sample config keeps its data; the one conffile is the config
// the unit runs with, in the unit's configuration directory.
func TestAgreesWithUnitAndConfig(t *testing.T) {
	u := unit(t, "../systemd/edged.service")
	user, group, state := one(t, u, "User"), one(t, u, "Group"), one(t, u, "StateDirectory")
	if user != group {
		t.Fatalf("User=%s, Group=%s: postinst creates one user with its own group", user, group)
	}
	m := regexp.MustCompile(`adduser --system --group .*--home (\S+) .*--no-create-home (\S+)\n`).FindStringSubmatch(read(t, "debian/postinst"))
	if m == nil {
		t.Fatal("postinst: no adduser --system --group ... --home DIR --no-create-home USER")
	}
	if m[2] != user || m[1] != "/var/lib/"+state {
		t.Errorf("postinst creates %s with home %s; the unit runs as %s in /var/lib/%s", m[2], m[1], user, state)
	}

	var cfg struct {
		DataDir string `yaml:"data_dir"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "../systemd/edged.yaml")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/var/lib/"+state {
		t.Errorf("edged.yaml data_dir %s is not the unit's StateDirectory /var/lib/%s", cfg.DataDir, state)
	}

	conffiles := strings.Fields(read(t, "debian/conffiles"))
	config := "/etc/" + one(t, u, "ConfigurationDirectory") + "/edged.yaml"
	if !slices.Equal(conffiles, []string{config}) {
		t.Errorf("conffiles %q, want exactly the config %s", conffiles, config)
	}
	for _, key := range []string{"ExecStartPre", "ExecStart"} {
		v := one(t, u, key)
		if !strings.HasPrefix(v, "/usr/local/bin/edged ") || !strings.HasSuffix(v, " "+config) {
			t.Errorf("%s=%s: deb.sh expects /usr/local/bin/edged (it installs /usr/bin/edged) and the config %s", key, v, config)
		}
	}
}

// TestMaintainerScriptsAreSound: POSIX sh that stops at the first error and names
// only edged's unit.
func TestMaintainerScriptsAreSound(t *testing.T) {
	for _, name := range []string{"postinst", "prerm", "postrm"} {
		path := filepath.Join("debian", name)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", name)
		}
		s := read(t, path)
		if !strings.HasPrefix(s, "#!/bin/sh\n") || !strings.Contains(s, "\nset -e\n") {
			t.Errorf("%s: want #!/bin/sh and set -e", name)
		}
		if out, err := exec.Command("sh", "-n", path).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v\n%s", name, err, out)
		}
		for _, unit := range regexp.MustCompile(`[\w@-]+\.service`).FindAllString(s, -1) {
			if unit != "edged.service" {
				t.Errorf("%s names %s", name, unit)
			}
		}
	}
}

// TestControlPlaceholders: deb.sh fills every @FIELD@ of control.in
// (the built package's control is checked for leftovers too).
func TestControlPlaceholders(t *testing.T) {
	script := read(t, "../scripts/deb.sh")
	for _, p := range regexp.MustCompile(`@[A-Z_]+@`).FindAllString(read(t, "debian/control.in"), -1) {
		if !strings.Contains(script, "s|"+p+"|") {
			t.Errorf("control.in's %s is not filled by scripts/deb.sh", p)
		}
	}
}
