package layers

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/edged-robotics/edged/"

// layer of every package: a package imports only packages of a lower
// layer. Tools (bench, soak, stress) sit on top.
var layer = map[string]int{
	"internal/fsutil": 0, "internal/fielderr": 0, "internal/loglimit": 0, "internal/poll": 0, "internal/sampledata": 0, "internal/brokertest": 1, "internal/s3test": 1, "internal/freeport": 0, "internal/pki": 0, "internal/httpserve": 0, "internal/cpuprofile": 0, "internal/yield": 0,
	"internal/chromium": 1, "internal/layers": 0, "internal/mcaptest": 0, "internal/cliptest": 3, "clip/policy": 3, "clip/upload": 4, "clip": 6,
	"rosmsg": 0, "ros/xmlrpc": 0, "ros/tcpros": 0, "ros/msg": 1, "ros/rosout": 1, "ros/master": 1, "ros": 2, "ros/rostest": 2,
	"fsm/fsmkind": 0, "score": 0, "rtl": 0, "sheet/recipe": 1, "sheet/turbojpeg": 0,
	"uplink/wire": 0, "uplink/mqttconn": 1, "uplink/outbox": 1, "uplink/publish": 2, "uplink": 3,
	"capture": 3, "bag": 3, "bag/mcap": 0, "bag/rosbag2": 4, "bag/recording": 5, "bag/rosbag2/rosbag2test": 0, "ros2/cdr": 2, "ros2/dds": 3, "ros2/ddstest": 4,
	"ringbuf": 4, "episode": 3, "episode/store": 4, "rostool": 4, "episode/episodetest": 4, "sink/receive": 4, "blob": 1, "blob/s3": 2, "blob/blobtest": 2,
	"sheet": 5, "fsm": 5, "sink": 5, "episode/view": 5, "tracecheck": 5, "episode/remote": 5,
	"ship": 6, "report": 6, "dataset": 6, "score/fleet": 6,
	"vlm": 1, "vlm/vlmtest": 0, "annotate": 6, "score/apiscore": 2,
	// config composes the components' own defaults and rules (each
	// component owns its section's), so it sits above every component
	// it configures and below the daemon that maps it onto them.
	"config": 6,
	// the stages' wiring, built by the live daemon and by replay alike
	"pipeline": 7,
	// an episode as MCAP in clip's conventions (its topics)
	"episode/mcapexport": 7,
	"daemon":             8, "replay": 8,
	"cmd/edged": 9, "systemd": 9, "packaging": 9, "internal/pipelinetest": 9,
}

const tools = 10 // bench/..., soak/..., stress/...

// mustNot are imports the layers allow but the design does not.
var mustNot = map[string][]string{
	// The config file is mapped onto each stage's Config by the daemon.
	"fsm": {"config"}, "uplink": {"config"}, "capture": {"config"}, "sheet": {"config"},
	// The store knows nothing of scoring or of how it is shown (view).
	"episode": {"config", "score"},
	// The sink decodes the wire; its receiver takes episodes.
	"sink/receive": {"uplink/wire"},
}

// only lists the complete set of edged packages a package may depend on,
// directly or not: uplink moves bytes and knows no domain package.
var only = map[string][]string{
	"uplink": {"internal/fielderr", "internal/fsutil", "uplink/mqttconn", "uplink/outbox", "uplink/publish", "uplink/wire"},
}

func TestLayers(t *testing.T) {
	pkgs := packages(t)
	for _, p := range pkgs {
		lp, ok := layerOf(p.rel)
		if !ok {
			t.Errorf("package %s has no layer: place it in internal/layers' table", p.rel)
			continue
		}
		for _, dep := range p.deps {
			ld, ok := layerOf(dep)
			if ok && ld >= lp {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import may only go down a layer", p.rel, lp, dep, ld)
			}
			if slices.Contains(mustNot[p.rel], dep) {
				t.Errorf("%s imports %s, which the design forbids (see mustNot)", p.rel, dep)
			}
		}
	}
	byRel := map[string]pkg{}
	for _, p := range pkgs {
		byRel[p.rel] = p
	}
	for name, allowed := range only {
		for _, dep := range closure(byRel, name) {
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s depends on %s; it may depend only on %v", name, dep, allowed)
			}
		}
	}
}

func layerOf(rel string) (int, bool) {
	for _, top := range []string{"bench/", "soak", "stress"} {
		if strings.HasPrefix(rel, top) {
			return tools, true
		}
	}
	l, ok := layer[rel]
	return l, ok
}

type pkg struct {
	rel  string
	deps []string // edged packages imported by non-test files
}

// packages lists every package of the module with its edged imports.
func packages(t *testing.T) []pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []pkg
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		p := pkg{rel: filepath.ToSlash(rel)}
		for _, imp := range bp.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				p.deps = append(p.deps, dep)
			}
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

// closure is every edged package name depends on, directly or not.
func closure(pkgs map[string]pkg, name string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, d := range pkgs[n].deps {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(name)
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
