package remote

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestOpenEpisode: an episode is named where it is, in a directory or
// an object store, and read there by episode.LoadBlobs.
func TestOpenEpisode(t *testing.T) {
	srv := s3test.Start(t)
	srv.SetEnv(t)
	ctx := context.Background()
	s, err := s3.Open(ctx, srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	local := blob.Dir{Root: data}
	manifest := []byte(`{"format":1,"robot":"arm-01","closed":true}`)
	for _, ep := range []string{"arm-01-a", "arm-01-b"} {
		for _, st := range []blob.Blobs{s, local} {
			if _, err := st.Put("episodes/"+ep+"/manifest.json", manifest, blob.Cond{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	epDir := filepath.Join(data, "episodes", "arm-01-b")
	for _, tc := range []struct {
		name, store, ref string
		want, err        string // the episode read, or what the error says
	}{
		{"an episode directory", "", epDir, "arm-01-b", ""},
		{"an id in a data_dir", data, "arm-01-a", "arm-01-a", ""},
		{"a prefix in an episodes/ directory", filepath.Join(data, "episodes"), "arm-01-b", "arm-01-b", ""},
		{"an id in a store URL", srv.URL("fleet"), "arm-01-a", "arm-01-a", ""},
		{"an episode's URL", "", srv.URL("fleet/episodes/arm-01-b"), "arm-01-b", ""},
		{"a store's URL as the episode", "", srv.URL("fleet"), "", "is not an episode"},
		{"a missing directory", "", filepath.Join(data, "nope"), "", "no such file"},
		{"a directory that is no episode", "", data, "", "not an episode directory"},
		{"an unknown id", data, "arm-02", "", "no episode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, id, err := OpenEpisode(ctx, tc.store, tc.ref)
			var e *episode.Episode
			if err == nil {
				e, err = episode.LoadBlobs(st, id)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || e.Manifest.ID != tc.want {
				t.Fatalf("read %v, %v; want %s", e, err, tc.want)
			}
		})
	}
}

// TestNamed: inspect's [DIR] [EPISODE] in directories: a store to list,
// an episode directory, an id in a store or in the default data_dir.
func TestNamed(t *testing.T) {
	data := t.TempDir()
	store := blob.Dir{Root: filepath.Join(data, episode.EpisodesDir)}
	if _, err := store.Put("arm-01-a/"+episode.ManifestFile, []byte(`{"format":1,"robot":"arm-01"}`), blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	epDir := filepath.Join(store.Root, "arm-01-a")
	for _, tc := range []struct {
		name    string
		dataDir string
		args    []string
		list    bool
	}{
		{"the default store", data, nil, true},
		{"a store", "/nowhere", []string{data}, true},
		{"an episode directory", "/nowhere", []string{epDir}, false},
		{"an id in the default store", data, []string{"arm-01"}, false},
		{"an id in a store", "/nowhere", []string{data, "arm-01-a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Named(context.Background(), tc.dataDir, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if tc.list {
				ms, err := r.List()
				if err != nil || len(ms) != 1 || r.Load != nil {
					t.Fatalf("list %v, %v", ms, err)
				}
				return
			}
			e, _, err := r.Load()
			if err != nil || e.Manifest.ID != "arm-01-a" || r.List != nil {
				t.Fatalf("load %v, %v", e, err)
			}
		})
	}
}
