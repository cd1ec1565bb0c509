package uplink

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/edged-robotics/edged/"

// allowedDeps are the only edged packages uplink may depend on, directly
// or not: it moves bytes (wire format, outbox, MQTT) and knows no domain
// package; the daemon's shipping stage (package ship) converts
// manifests, segments, sheets and snippets into wire bodies, and the
// daemon maps the config file (internal/fielderr is only the error
// type that names a config key).
var allowedDeps = []string{"internal/fielderr", "internal/fsutil", "uplink/mqttconn", "uplink/outbox", "uplink/publish", "uplink/wire"}

// TestImportsNoDomainPackage: the dependencies of package uplink (not
// of its tests) are the byte-moving packages only.
func TestImportsNoDomainPackage(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(rel string)
	walk = func(rel string) {
		p, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok || seen[dep] {
				continue
			}
			seen[dep] = true
			if !slices.Contains(allowedDeps, dep) {
				t.Errorf("uplink depends on %s (through %s); allowed: %v", dep, rel, allowedDeps)
				continue
			}
			walk(dep)
		}
	}
	walk("uplink")
}
