package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// closedEpisode records a closed two-segment episode and returns its
// directory and what Load reads of it.
func closedEpisode(t *testing.T, dir string) (string, *episode.Episode) {
	t.Helper()
	s := open(t, dir, Options{})
	w, err := s.Begin(Begin{Robot: "arm-01", Start: t0})
	must(t, err)
	must(t, w.Transition(episode.Transition{Source: "/task_state", Stamp: at(0), Kind: "state", To: "reach", Opens: "reach"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Segment(seg("grasp", 1, 2)))
	must(t, w.Close(at(2), episode.Completed, episode.EndIdle))
	must(t, s.Close())
	e, err := episode.Load(dir, w.ID())
	must(t, err)
	return e.Dir, e
}

func TestRecordFilesStartWithHeader(t *testing.T) {
	epDir, _ := closedEpisode(t, t.TempDir())
	for _, name := range []string{episode.SegmentsFile, episode.TransitionsFile} {
		b, err := os.ReadFile(filepath.Join(epDir, name))
		must(t, err)
		if !bytes.HasPrefix(b, episode.FileHeader()) {
			t.Errorf("%s starts with %q, want the header %q", name, b[:min(len(b), len(episode.FileHeader()))], episode.FileHeader())
		}
	}
}

// stripHeaders turns an episode's record files into the format written
// before headers.
func stripHeaders(t *testing.T, epDir string) {
	t.Helper()
	for _, name := range []string{episode.SegmentsFile, episode.TransitionsFile} {
		path := filepath.Join(epDir, name)
		b, err := os.ReadFile(path)
		must(t, err)
		must(t, os.WriteFile(path, bytes.TrimPrefix(b, episode.FileHeader()), 0o644))
	}
}

func TestReadsFilesWithoutHeader(t *testing.T) {
	dir := t.TempDir()
	epDir, want := closedEpisode(t, dir)
	stripHeaders(t, epDir)
	got, err := episode.Load(dir, want.Manifest.ID)
	must(t, err)
	if len(got.Problems) != 0 || !reflect.DeepEqual(got.Segments, want.Segments) ||
		!reflect.DeepEqual(got.Transitions, want.Transitions) {
		t.Fatalf("without headers: problems %v\nsegments %+v\nwant     %+v", got.Problems, got.Segments, want.Segments)
	}
}

// An episode left open by an older edged, with a torn tail: recovery
// reads the headerless files, cuts the tail and writes the repaired file
// with a header.
func TestRecoversFilesWithoutHeader(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	w, err := s.Begin(Begin{Robot: "arm-01", Start: t0})
	must(t, err)
	must(t, w.Transition(episode.Transition{Source: "/task_state", Stamp: at(0), Kind: "state", To: "reach", Opens: "reach"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, s.Close()) // the writer is left open, as a crash leaves it
	epDir := filepath.Join(dir, w.ID())
	stripHeaders(t, epDir)
	f, err := os.OpenFile(filepath.Join(epDir, episode.SegmentsFile), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	rec, _ := episode.AppendRecord(nil, 1, []byte(`{"index":1,"label":"grasp"}`)) // a record, framed for a file that has its header
	_, err = f.Write(rec[:11])
	must(t, err)
	must(t, f.Close())

	s2 := open(t, dir, Options{})
	if r := s2.Recovered(); len(r) != 1 || r[0].TornBytes != 11 {
		t.Fatalf("recovered = %+v", r)
	}
	e, err := episode.Load(dir, w.ID())
	must(t, err)
	if len(e.Segments) == 0 || e.Segments[0].Label != "reach" || !e.Manifest.Closed || len(e.Problems) != 0 {
		t.Fatalf("after recovery: segments %+v closed %v problems %v", e.Segments, e.Manifest.Closed, e.Problems)
	}
	b, err := os.ReadFile(filepath.Join(epDir, episode.SegmentsFile))
	must(t, err)
	if !bytes.HasPrefix(b, episode.FileHeader()) {
		t.Error("repaired segments.rec has no header")
	}
}

// A file of a newer format is reported, not misread as corrupt records.
func TestNewerFormatIsReported(t *testing.T) {
	dir := t.TempDir()
	epDir, _ := closedEpisode(t, dir)
	path := filepath.Join(epDir, episode.SegmentsFile)
	b, err := os.ReadFile(path)
	must(t, err)
	b[len(episode.FileHeader())-1]++ // the version byte ends the header
	must(t, os.WriteFile(path, b, 0o644))
	e, err := episode.Load(dir, filepath.Base(epDir))
	must(t, err)
	if len(e.Segments) != 0 || len(e.Problems) != 1 || !bytes.Contains([]byte(e.Problems[0]), []byte("newer edged")) {
		t.Fatalf("segments %+v problems %v", e.Segments, e.Problems)
	}
}
