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

// Copy copies the sample file or directory name into a new temporary
// directory and returns the copy's path (a directory with everything under it), or
// skips the test. A
// test that alters sample data (corrupts, compresses or splits it)
// alters the copy: the samples are read-only.
func Copy(t testing.TB, name string) string {
	t.Helper()
	src := Path(t, name)
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy sample data %s: %v", name, err)
	}
	return dst
}
