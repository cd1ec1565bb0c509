package systemd

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
)

// TestSampleConfigChecks: the sample config passes what `edged config
// check` applies (daemon.Check: config's validation, the files it
// names, every component's rules).
func TestSampleConfigChecks(t *testing.T) {
	cfg, err := config.Load("edged.yaml")
	if err != nil {
		t.Fatalf("edged.yaml: %v", err)
	}
	if err := daemon.Check(cfg); err != nil {
		t.Fatalf("edged.yaml does not pass edged config check: %v", err)
	}
}

// TestSampleConfigDocumentsEverySection: every top-level section of
// config.Config is in the sample, and every setting of a section (as the
// effective config shows it) is named there, set or in a comment, so a
// setting added to config without a word in the sample fails here.
func TestSampleConfigDocumentsEverySection(t *testing.T) {
	b, err := os.ReadFile("edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var sample map[string]yaml.Node
	if err := yaml.Unmarshal(b, &sample); err != nil {
		t.Fatalf("edged.yaml: %v", err)
	}
	ct := reflect.TypeFor[config.Config]()
	for i := range ct.NumField() {
		key, _, _ := strings.Cut(ct.Field(i).Tag.Get("yaml"), ",")
		if _, ok := sample[key]; !ok && key != "" && key != "-" {
			t.Errorf("edged.yaml has no %s: section (config.Config.%s)", key, ct.Field(i).Name)
		}
	}
	cfg, err := config.Load("edged.yaml")
	if err != nil {
		t.Fatalf("edged.yaml: %v", err)
	}
	eff, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var effective map[string]yaml.Node
	if err := yaml.Unmarshal(eff, &effective); err != nil {
		t.Fatal(err)
	}
	for section, n := range effective {
		if n.Kind != yaml.MappingNode {
			continue // a value, or a list whose items the sample shows
		}
		for i := 0; i < len(n.Content); i += 2 {
			key := n.Content[i].Value
			named := regexp.MustCompile(`(?m)^\s*(#\s*)?` + regexp.QuoteMeta(key) + `:`)
			if !named.Match(b) {
				t.Errorf("edged.yaml does not name %s.%s (set it to its default or say it in a comment)", section, key)
			}
		}
	}
}
