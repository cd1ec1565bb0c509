// Package blobtest is the contract every blob.Blobs keeps, as one
// table test that each backend's tests run (a directory here, an object
// store in blob/s3).
package blobtest

import (
	"errors"
	"io/fs"
	"sort"
	"testing"

	"github.com/edged-robotics/edged/blob"
)

// Contract runs the contract against b, which must be empty.
func Contract(t *testing.T, b blob.Blobs) {
	t.Helper()
	v1 := conditionalPuts(t, b)
	reads(t, b, v1)
	listing(t, b)
	deletes(t, b)
}

// conditionalPuts writes the blobs the later steps read, checking each
// kind of condition, and returns the version of the first manifest.
func conditionalPuts(t *testing.T, b blob.Blobs) (v1 string) {
	t.Helper()
	v1, err := b.Put("ep/manifest.json", []byte("one"), blob.Cond{IfAbsent: true})
	if err != nil {
		t.Fatalf("first conditional put: %v", err)
	}
	steps := []struct {
		name string
		blob string
		body string
		cond blob.Cond
		fail bool // with ErrPrecondition
	}{
		{"absent, but it exists", "ep/manifest.json", "two", blob.Cond{IfAbsent: true}, true},
		{"at the version read", "ep/manifest.json", "two", blob.Cond{IfVersion: v1}, false},
		{"at a stale version", "ep/manifest.json", "three", blob.Cond{IfVersion: v1}, true},
		{"unconditional", "ep/sheets/cam/sheet-0001.jpg", "jpeg", blob.Cond{}, false},
		{"another blob, absent", "ep/segments.rec", "rec", blob.Cond{IfAbsent: true}, false},
	}
	for _, s := range steps {
		_, err := b.Put(s.blob, []byte(s.body), s.cond)
		if got := errors.Is(err, blob.ErrPrecondition); got != s.fail || (!s.fail && err != nil) {
			t.Errorf("%s: %v (want a failed precondition: %v)", s.name, err, s.fail)
		}
	}
	return v1
}

// reads checks what Get returns after conditionalPuts, its cap and its
// error for an absent blob, and that no name leaves the root.
func reads(t *testing.T, b blob.Blobs, v1 string) {
	t.Helper()
	got, v2, err := b.Get("ep/manifest.json", 100)
	if err != nil || string(got) != "two" || v2 == v1 {
		t.Errorf("get: %q %q %v (version was %q)", got, v2, err, v1)
	}
	if _, _, err := b.Get("ep/manifest.json", 2); !errors.Is(err, blob.ErrTooLarge) {
		t.Errorf("a read over its cap: %v, want ErrTooLarge", err)
	}
	if _, _, err := b.Get("ep/absent", 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v, want fs.ErrNotExist", err)
	}
	if _, err := b.Put("../escape", nil, blob.Cond{}); err == nil {
		t.Error("a name leaving the root was written")
	}
}

// listing checks that List names every blob under a prefix, nested ones
// too.
func listing(t *testing.T, b blob.Blobs) {
	t.Helper()
	l, err := b.List("ep/")
	var names []string
	for _, f := range l {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	want := []string{"ep/manifest.json", "ep/segments.rec", "ep/sheets/cam/sheet-0001.jpg"}
	if err != nil || len(names) != len(want) {
		t.Fatalf("list: %v %v, want %v", names, err, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("list: %v, want %v", names, want)
		}
	}
}

// deletes checks that Delete removes a blob and that deleting an absent
// one is no error.
func deletes(t *testing.T, b blob.Blobs) {
	t.Helper()
	if err := b.Delete("ep/segments.rec"); err != nil {
		t.Error(err)
	}
	if err := b.Delete("ep/segments.rec"); err != nil {
		t.Errorf("deleting an absent blob: %v", err)
	}
	if l, _ := b.List("ep/seg"); len(l) != 0 {
		t.Errorf("after delete: %v", l)
	}
}
