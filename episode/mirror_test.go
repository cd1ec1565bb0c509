package episode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
)

// failingGets is Blobs whose Get of one name fails.
type failingGets struct {
	blob.Blobs
	bad string
}

var errGet = errors.New("get failed")

func (f failingGets) Get(name string, max int64) ([]byte, string, error) {
	if name == f.bad {
		return nil, "", errGet
	}
	return f.Blobs.Get(name, max)
}

func TestMirrorWith(t *testing.T) {
	src := blob.Dir{Root: t.TempDir()}
	var names []string
	for i := range 20 {
		ep := fmt.Sprintf("episodes/arm-01-%02d/", i)
		for _, n := range []string{manifestName, segmentsName, "sheets/cam/sheet-0001.jpg", "sheets/cam/sheet-0001.json"} {
			if _, err := src.Put(ep+n, []byte(ep+n), blob.Cond{}); err != nil {
				t.Fatal(err)
			}
			names = append(names, ep+n)
		}
	}
	if _, err := src.Put(".sink/ids.log", []byte("x"), blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		b    blob.Blobs
		o    MirrorOptions
		want func(name string) bool
		err  error
	}{
		{"everything", src, MirrorOptions{}, func(string) bool { return true }, nil},
		{"one worker", src, MirrorOptions{Workers: 1}, func(string) bool { return true }, nil},
		{"records only", src, MirrorOptions{RecordsOnly: true}, func(n string) bool {
			return filepath.Base(n) == manifestName || filepath.Base(n) == segmentsName
		}, nil},
		{"a failed get", failingGets{src, names[7]}, MirrorOptions{Workers: 3}, nil, errGet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err := MirrorWith(tc.b, "", dir, tc.o)
			if !errors.Is(err, tc.err) {
				t.Fatalf("MirrorWith: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			var got, want []string
			for _, n := range names {
				if tc.want(n) {
					want = append(want, n)
				}
			}
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Base(p) != ".blobs.lock" {
					rel, _ := filepath.Rel(dir, p)
					b, _ := os.ReadFile(p)
					if string(b) != filepath.ToSlash(rel) {
						t.Errorf("%s holds %q", rel, b)
					}
					got = append(got, filepath.ToSlash(rel))
				}
				return err
			})
			sort.Strings(got)
			sort.Strings(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("mirrored %d files, want %d:\n%v\n%v", len(got), len(want), got, want)
			}
		})
	}
}

// slowGets is Blobs whose every Get takes a round trip's time, as an
// object store's does.
type slowGets struct {
	blob.Blobs
	rtt time.Duration
}

func (s slowGets) Get(name string, max int64) ([]byte, string, error) {
	time.Sleep(s.rtt)
	return s.Blobs.Get(name, max)
}

// BenchmarkMirror mirrors 64 sheets of 64 KB from a store with a 2 ms
// round trip, one at a time against the default workers: what a mirror
// costs on an object store is its round trips.
func BenchmarkMirror(b *testing.B) {
	src := blob.Dir{Root: b.TempDir()}
	body := make([]byte, 64<<10)
	for i := range 64 {
		if _, err := src.Put(fmt.Sprintf("episodes/arm-01/sheets/cam/sheet-%04d.jpg", i), body, blob.Cond{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(64 * int64(len(body)))
			for b.Loop() {
				if err := MirrorWith(slowGets{src, 2 * time.Millisecond}, "", b.TempDir(), MirrorOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMirrorOfOneEpisodeLeavesItsNamesakes: an episode's prefix is a
// folder. Store.Begin names a second episode of the same millisecond
// ID-2, and a mirror of ID used to fetch it too, into ID/-2/.
func TestMirrorOfOneEpisodeLeavesItsNamesakes(t *testing.T) {
	src := blob.Dir{Root: t.TempDir()}
	for _, n := range []string{"episodes/arm-01-x/" + manifestName, "episodes/arm-01-x-2/" + manifestName} {
		if _, err := src.Put(n, []byte(n), blob.Cond{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := MirrorWith(src, "episodes/arm-01-x", dir, MirrorOptions{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != manifestName {
		t.Errorf("mirrored %v, want only %s", ents, manifestName)
	}
}
