package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestMissingPathIsNamed: a path that does not exist, given where an
// episode, a store or an id goes, is what the error names; it was read
// as an id in the default data_dir, so `edged inspect /missing/dir`
// blamed /var/lib/edged.
func TestMissingPathIsNamed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing", "dir")
	for _, args := range [][]string{
		{"inspect", missing},
		{"inspect", "--json", missing},
		{"export", missing},
		{"report", "--out", filepath.Join(t.TempDir(), "r.html"), missing},
	} {
		t.Run(args[0], func(t *testing.T) {
			out := edged(t, false, args...)
			if !strings.Contains(out, missing+": no such file or directory") || strings.Contains(out, config.DefaultDataDir) {
				t.Errorf("edged %s: %s\nwant the missing path named, not %s", strings.Join(args, " "), out, config.DefaultDataDir)
			}
		})
	}
}
