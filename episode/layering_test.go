package episode

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The store knows nothing of scoring or of how it is shown: those sit
// above it (episode/view, report, cmd/edged). An import of any of them
// from a non-test file here would turn the layering upside down.
func TestImportsNothingAbove(t *testing.T) {
	const mod = "github.com/edged-robotics/edged/"
	above := []string{"score", "episode/view", "report", "cmd", "daemon", "fsm", "uplink"}
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
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, a := range above {
				if p == mod+a || strings.HasPrefix(p, mod+a+"/") {
					t.Errorf("%s imports %s: package episode must not depend on it (move the code to episode/view or above)", f, p)
				}
			}
		}
	}
}
