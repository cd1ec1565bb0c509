// Package sampledata locates the real robot recordings that tests and
// benchmarks read from ../shared/data, beside the repository (they are
// never copied into it). Tests skip with a clear message where the folder
// or the file is absent, as on a fresh clone elsewhere.
package sampledata

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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

// PanFrames extracts the 1280x720 JPEGs of pan720p.mp4 (30 fps, 10 s)
// into a temporary directory with ffmpeg (-q:v 3, as its README says),
// every nth frame (1: all 300), and returns their paths in order; it
// skips the test without the video or ffmpeg.
func PanFrames(t testing.TB, every int) []string {
	t.Helper()
	mp4 := Path(t, "pan720p.mp4")
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed (make deps): needed to extract frames from pan720p.mp4")
	}
	dir := t.TempDir()
	args := []string{"-loglevel", "error", "-i", mp4, "-q:v", "3"}
	if every > 1 {
		args = append(args, "-vf", "select=not(mod(n\\,"+strconv.Itoa(every)+"))", "-fps_mode", "passthrough")
	}
	args = append(args, filepath.Join(dir, "f%04d.jpg"))
	if out, err := exec.Command(ff, args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "f*.jpg"))
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("ffmpeg extracted no frames")
	}
	return paths
}
