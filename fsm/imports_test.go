package fsm

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDoesNotImportConfig: the config file is mapped onto Config by the
// daemon (config's doc); fsm reading config.Config itself made it a
// second owner of that mapping.
func TestDoesNotImportConfig(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/edged-robotics/edged/config" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
