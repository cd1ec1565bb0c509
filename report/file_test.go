package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFile: a report lands whole under its name, 0644; a failed
// one leaves neither the name nor a temporary file, and a page already
// there stays as it was.
func TestWriteFile(t *testing.T) {
	f := record(t, pickPlace, "pick the bottle")
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	for _, tc := range []struct {
		name, path, ref string
		err             string
	}{
		{"written", out, f.epDir, ""},
		{"a missing episode keeps the page", out, filepath.Join(dir, "nope"), "nope"},
		{"a missing directory", filepath.Join(dir, "no", "r.html"), f.epDir, "--out: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(tc.path)
			s, err := WriteFile(tc.path, tc.ref, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				if after, _ := os.ReadFile(tc.path); string(after) != string(before) {
					t.Errorf("a failed report changed %s", tc.path)
				}
			} else {
				fi, err2 := os.Stat(tc.path)
				if err != nil || err2 != nil || s.HTMLBytes != fi.Size() || fi.Mode().Perm() != 0o644 {
					t.Fatalf("summary %+v, err %v, file %v %v", s, err, fi, err2)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 2 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}
