package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/blobtest"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestReadersOnBlobs: ListBlobs and LoadBlobs read a store kept in a
// real S3 server (versitygw) as List and Load read its directory, with
// no copy on disk, and one episode read is a handful of GETs: the
// manifest's size and body, the two record files and the metadata of
// each sheet (the cost line's tokens), never a sheet's JPEG.
func TestReadersOnBlobs(t *testing.T) {
	srv := s3test.Start(t)
	dir := t.TempDir()
	s := open(t, dir, Options{})
	var ids []string
	for i := range 2 {
		w, err := s.Begin(Begin{Robot: "arm-01", Start: at(float64(10 * i))})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.Transition(episode.Transition{Stamp: at(float64(10 * i)), Kind: episode.TransitionState, Source: "/task_state", From: "idle", To: "reach", Opens: "reach"}))
		must(t, w.Segment(seg("reach", float64(10*i), float64(10*i+2))))
		sheets := episode.SheetDir(w.Dir(), "/cam")
		for k := 1; k <= 3; k++ {
			episodetest.Put(t, filepath.Join(sheets, episode.SheetName(k)+".jpg"), []byte("\xff\xd8 a sheet"))
			episodetest.Put(t, filepath.Join(sheets, episode.SheetName(k)+".json"), episodetest.SheetJSON(640, 480, 100, 4*(k-1), 4))
		}
		must(t, w.Close(at(float64(10*i+2)), episode.Completed, episode.EndIdle))
		ids = append(ids, filepath.Base(w.Dir()))
	}
	s.Close()
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || d.Name()[0] == '.' {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = st.Put("episodes/"+filepath.ToSlash(rel), b, blob.Cond{})
		return err
	}))
	store := blob.Sub(st, episode.EpisodesDir)

	wantList, err := episode.List(dir)
	must(t, err)
	c := blobtest.NewCounting(store)
	gotList, err := episode.ListBlobs(c)
	must(t, err)
	if !reflect.DeepEqual(gotList, wantList) {
		t.Errorf("ListBlobs:\n%+v\nwant List's\n%+v", gotList, wantList)
	}
	if c.Lists != 1 || c.Gets[episode.ManifestFile] != 2 || len(c.Gets) != 1 {
		t.Errorf("listing 2 episodes: %d lists, gets %v; want 1 list and one get of each manifest", c.Lists, c.Gets)
	}

	for _, tc := range []struct {
		name    string
		ref     string
		lists   int // a prefix is resolved by listing the store
		maxGets int
		wantErr bool
	}{
		{"an id", ids[1], 1, 1 + 1 + 2 + 3, false},
		{"a unique prefix", ids[0][:len(ids[0])-3], 2, 3 + 1 + 2 + 3, false},
		{"no such episode", "arm-02", 1, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := blobtest.NewCounting(store)
			got, err := episode.LoadBlobs(c, tc.ref)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("LoadBlobs(%s) found %s", tc.ref, got.Manifest.ID)
				}
				return
			}
			must(t, err)
			want, err := episode.Load(dir, tc.ref)
			must(t, err)
			if got.Dir != store.String()+"/"+want.Manifest.ID {
				t.Errorf("Dir %q", got.Dir)
			}
			got.Dir = want.Dir
			if !reflect.DeepEqual(got, want) {
				t.Errorf("LoadBlobs:\n%+v\nwant Load's\n%+v", got, want)
			}
			gets := 0
			for _, n := range c.Gets {
				gets += n
			}
			if gets > tc.maxGets || c.Lists != tc.lists || c.Gets[episode.SheetName(1)+".jpg"] != 0 {
				t.Errorf("%d gets %v and %d lists; want at most %d gets, %d lists, no sheet", gets, c.Gets, c.Lists, tc.maxGets, tc.lists)
			}
			t.Logf("one episode read: %d GETs (%v), %d LISTs", gets, c.Gets, c.Lists)
		})
	}
}
