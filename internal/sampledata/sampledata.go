// Package sampledata locates the real robot recordings that tests and
// benchmarks read from ../shared/data, beside the repository (they are
// never copied into it). Tests skip with a clear message where the folder
// or the file is absent, as on a fresh clone elsewhere.
package sampledata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the sample data directory (../shared/data next to the
// module root), or "" when it is absent.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "data")
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return ""
	}
	return d
}

// Path returns the path of the sample file name, or skips the test.
func Path(t testing.TB, name string) string {
	t.Helper()
	d := Dir()
	if d == "" {
		t.Skipf("sample data %s not available: ../shared/data next to the repository is absent", name)
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("sample data %s not available: %v", name, err)
	}
	return p
}
