package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestReadersOnAnObjectStore: inspect, export, score, check and report
// read a store in a real S3 server where it is (episode.ListBlobs,
// LoadBlobs, and the episode's files through blob.Blobs): they copy
// nothing to disk and make no cache directory (report and export
// --format vista/etp, which read the sheets, used to mirror the
// episode they read under the user's cache directory).
func TestReadersOnAnObjectStore(t *testing.T) {
	srv := s3test.Start(t)
	ids := uploadEpisodes(t, srv, "fleet", 2)
	cache := t.TempDir()
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache)
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := edgedWithin(t, env, time.Minute, args...)
		if err != nil {
			t.Fatalf("edged %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return out
	}
	store := srv.URL("fleet")

	var list []episode.Manifest
	if err := json.Unmarshal([]byte(run("inspect", "--json", store)), &list); err != nil || len(list) != 2 {
		t.Fatalf("inspect %s: %v, %d episodes; want 2", store, err, len(list))
	}
	if got := cached(t, cache); len(got) != 0 {
		t.Errorf("listing the store copied files to disk: %v", got)
	}

	if out := run("inspect", store, ids[0][:len(ids[0])-3]); !strings.Contains(out, "reach") {
		t.Errorf("inspect %s %s (a unique prefix) shows no segment:\n%s", store, ids[0], out)
	}
	if got := cached(t, cache); len(got) != 0 {
		t.Errorf("inspecting %s copied files to disk: %v", ids[0], got)
	}

	if out := run("export", "--dir", store, "--format", "wgo", ids[1]); !strings.Contains(out, `"subtask"`) {
		t.Errorf("export of %s from %s:\n%s", ids[1], store, out)
	}
	if out := run("inspect", store+"/episodes/"+ids[1]); !strings.Contains(out, "reach") {
		t.Errorf("inspect of one episode's URL shows no segment:\n%s", out)
	}
	if out := run("score", "--truth", store+"/episodes/"+ids[0], "--pred", store+"/episodes/"+ids[1]); !strings.Contains(out, "F1") {
		t.Errorf("score of two episodes' URLs:\n%s", out)
	}
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	must(t, os.WriteFile(rules, []byte("checks: [{name: reaches, formula: 'tr.Exists(reach)'}]\n"), 0o644))
	for _, args := range [][]string{{store}, {store + "/episodes/" + ids[0]}, {"--dir", store, ids[1]}} {
		var rep struct{ Episodes []struct{ Episode string } }
		out := run(append([]string{"check", "--json", "--rules", rules}, args...)...)
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Episodes) == 0 {
			t.Errorf("check %v: %v\n%s", args, err, out)
		}
	}
	if got := cached(t, cache); len(got) != 0 {
		t.Errorf("inspecting both episodes, exporting %s, scoring and checking copied files to disk: %v", ids[1], got)
	}
	report := filepath.Join(t.TempDir(), "report.html")
	run("report", "--dir", store, "--out", report, ids[1])
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), ids[1]) {
		t.Errorf("report of %s from %s: %v", ids[1], store, err)
	}
	run("report", "--out", report, store+"/episodes/"+ids[0])
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), ids[0]) {
		t.Errorf("report of %s's URL: %v", ids[0], err)
	}
	if out := run("export", "--dir", store, "--format", "vista", ids[1]); !strings.Contains(out, `"description": "We reach."`) {
		t.Errorf("vista export of %s from %s:\n%s", ids[1], store, out)
	}
	etp := t.TempDir()
	run("export", "--dir", store, "--format", "etp", "-o", etp, ids[0])
	if b, err := os.ReadFile(filepath.Join(etp, "etp.json")); err != nil || !strings.Contains(string(b), ids[0]) {
		t.Errorf("etp export of %s from %s: %v\n%s", ids[0], store, err, b)
	}
	if _, err := os.Stat(filepath.Join(cache, "edged")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the readers made a cache directory (%v): %v", err, cached(t, cache))
	}
}

// uploadEpisodes records n closed episodes of robot arm-01 (one segment
// and one contact sheet each) and copies them into srv under prefix, as
// a sink writes them; it returns their ids.
func uploadEpisodes(t *testing.T, srv *s3test.Server, prefix string, n int) []string {
	t.Helper()
	data := t.TempDir()
	s, err := epstore.Open(filepath.Join(data, episode.EpisodesDir), epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for i := range n {
		start := epoch.Add(time.Duration(i) * time.Hour)
		w, err := s.Begin(epstore.Begin{Robot: "arm-01", Start: start})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.Segment(episode.Segment{Index: 0, Start: start, End: start.Add(5 * time.Second), EndSec: 5,
			Label: "reach", Source: "/task/state", Kind: "string", Outcome: episode.Completed}))
		sheets := episode.SheetDir(w.Dir(), "/camera/image/compressed")
		must(t, os.MkdirAll(sheets, 0o755))
		must(t, os.WriteFile(filepath.Join(sheets, episode.SheetName(1)+".jpg"), []byte("\xff\xd8 a sheet"), 0o644))
		must(t, w.Close(start.Add(5*time.Second), episode.Completed, episode.EndIdle))
		ids = append(ids, filepath.Base(w.Dir()))
	}
	st, err := s3.Open(context.Background(), srv.URL(prefix), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	must(t, filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(data, p)
		_, err = st.Put(filepath.ToSlash(rel), b, blob.Cond{})
		return err
	}))
	return ids
}

// cached lists the files under cache (a mirror's).
func cached(t *testing.T, cache string) []string {
	t.Helper()
	var out []string
	must(t, filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	}))
	return out
}
