package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestReadable: a local path is read where it is; a store URL through
// its mirror in the user's cache directory, which holds, for one
// episode read from a store, every episode's records and that episode
// whole, and the other episodes' sheets not at all.
func TestReadable(t *testing.T) {
	srv := s3test.Start(t)
	srv.SetEnv(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	s, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range []string{"arm-01-a", "arm-01-b"} {
		for _, name := range []string{"manifest.json", "segments.rec", "sheets/cam/sheet-0001.jpg"} {
			if _, err := s.Put("episodes/"+ep+"/"+name, []byte(ep+" "+name), blob.Cond{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	mirror := filepath.Join(cache, "edged", "s3", filepath.FromSlash(strings.TrimPrefix(srv.URL("fleet"), "s3://")))
	held := func(ep, name string) bool {
		_, err := os.Stat(filepath.Join(mirror, "episodes", ep, filepath.FromSlash(name)))
		return err == nil
	}
	for _, tc := range []struct {
		name     string
		read     func() (string, error)
		wantDir  string
		sheetsOf []string // episodes whose sheets the mirror holds after
	}{
		{"a local directory", func() (string, error) { return Readable(ctx, "some/dir") }, "some/dir", nil},
		{"a local store", func() (string, error) { return ReadableEpisode(ctx, "some/dir", "x") }, "some/dir", nil},
		{"a store to list", func() (string, error) { return ReadableEpisode(ctx, srv.URL("fleet"), "") }, mirror, nil},
		{"one episode of a store", func() (string, error) { return ReadableEpisode(ctx, srv.URL("fleet"), "arm-01-a") }, mirror, []string{"arm-01-a"}},
		{"one episode's URL", func() (string, error) { return Readable(ctx, srv.URL("fleet/episodes/arm-01-b")) },
			filepath.Join(mirror, "episodes", "arm-01-b"), []string{"arm-01-a", "arm-01-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := tc.read()
			if err != nil || dir != tc.wantDir {
				t.Fatalf("dir %q, %v; want %q", dir, err, tc.wantDir)
			}
			if !strings.HasPrefix(tc.wantDir, mirror) {
				return
			}
			for _, ep := range []string{"arm-01-a", "arm-01-b"} {
				if tc.name != "one episode's URL" && (!held(ep, "manifest.json") || !held(ep, "segments.rec")) {
					t.Errorf("%s: the records of %s are not mirrored", tc.name, ep)
				}
				want := false
				for _, s := range tc.sheetsOf {
					want = want || s == ep
				}
				if got := held(ep, "sheets/cam/sheet-0001.jpg"); got != want {
					t.Errorf("%s: sheets of %s mirrored %v, want %v", tc.name, ep, got, want)
				}
			}
		})
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		path, rel string
		ok        bool
	}{
		{"/m", ".", true},
		{"/m/episodes/a", "episodes/a", true},
		{"/m/../x", "../x", false},
		{"/m2", "../m2", false},
		{"/", "..", false},
		{"/m/..a", "..a", true},
	} {
		rel, ok := within("/m", tc.path)
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("within(/m, %s) = %q, %v; want %q, %v", tc.path, rel, ok, tc.rel, tc.ok)
		}
	}
}
