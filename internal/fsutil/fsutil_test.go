package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Fatalf("got %q, want %q", b, content)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Fatal("writing into a missing directory must fail")
	}
}

func TestReadFileCapped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	cases := []struct {
		limit int64
		ok    bool
	}{{10, true}, {100, true}, {9, false}, {0, false}}
	for _, c := range cases {
		b, err := ReadFileCapped(p, c.limit)
		if (err == nil) != c.ok || (c.ok && string(b) != "0123456789") {
			t.Errorf("limit %d: %q, %v", c.limit, b, err)
		}
		if err != nil && !strings.Contains(err.Error(), "larger than") {
			t.Errorf("limit %d: unclear error %v", c.limit, err)
		}
	}
}
