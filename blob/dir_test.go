package blob

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDirDeleteLeavesNoDirectories: deleting a directory store's
// last blob in a directory removes the directories it leaves empty,
// with a conditional write's lock file, up to the root (a sink group's
// staged chunks left two directories and a lock file per message); a
// directory that still holds a blob stays.
func TestDirDeleteLeavesNoDirectories(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: root}
	for _, p := range []struct {
		name string
		cond Cond
	}{{"a/b/c/chunk", Cond{IfAbsent: true}}, {"a/b/kept", Cond{}}, {"x/y/z", Cond{}}} {
		if _, err := d.Put(p.name, []byte("1"), p.cond); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a/b/c/chunk", "x/y/z"} {
		if err := d.Delete(name); err != nil {
			t.Fatal(err)
		}
	}
	var left []string
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if p != root {
			rel, _ := filepath.Rel(root, p)
			left = append(left, rel)
		}
		return err
	})
	if fmt.Sprint(left) != "[a a/b a/b/kept]" {
		t.Fatalf("left %v, want only a/b/kept and its directories", left)
	}
}

// TestDirLockSurvivesRemoval: conditional writes stay exclusive
// while Delete removes the lock file and the directory between them:
// of writers racing to create one name, at most one holds it at a time.
func TestDirLockSurvivesRemoval(t *testing.T) {
	d := Dir{Root: t.TempDir()}
	var holders, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				_, err := d.Put("m/k/chunk", []byte("x"), Cond{IfAbsent: true})
				if errors.Is(err, ErrPrecondition) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				if n := holders.Add(1); n > most.Load() {
					most.Store(n)
				}
				holders.Add(-1)
				if err := d.Delete("m/k/chunk"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if most.Load() > 1 {
		t.Fatalf("%d writers held one name at once: the lock was not exclusive", most.Load())
	}
}
