package episode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Every scan rule holds for files with the header and for files written
// before it (robots in the field have those).
func TestScanRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []byte
	}{
		{"with header", fileHeader()},
		{"without header (before format headers)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := len(tc.header)
			b := append([]byte(nil), tc.header...)
			b = appendRecord(b, []byte(`{"a":1}`))
			b = appendRecord(b, []byte(`{"a":2}`))
			second := len(b)
			b = appendRecord(b, []byte(`{"a":3}`))
			good := append([]byte(nil), b...)

			sc := mustScan(t, good)
			if len(sc.Records) != 3 || len(sc.Bad) != 0 || sc.Torn.Len != 0 || sc.GoodEnd != len(good) {
				t.Fatalf("clean scan = %+v", sc)
			}
			// Flip a payload byte of record 2: quarantined, record 3 survives.
			c := append([]byte(nil), good...)
			c[second-2] ^= 0xff
			sc = mustScan(t, c)
			if len(sc.Records) != 2 || len(sc.Bad) != 1 || sc.Bad[0].Off != second-15 || string(sc.Records[1]) != `{"a":3}` {
				t.Fatalf("corrupt scan = %+v", sc)
			}
			// Cut anywhere inside the last record: torn tail.
			for cut := second + 1; cut < len(good); cut++ {
				sc = mustScan(t, good[:cut])
				if len(sc.Records) != 2 || sc.Torn.Off != second || sc.Torn.Len != cut-second {
					t.Fatalf("cut at %d: %+v", cut, sc)
				}
			}
			// An absurd length does not allocate or panic.
			sc = mustScan(t, append(append([]byte(nil), tc.header...), 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5))
			if len(sc.Records) != 0 || sc.Torn.Off != h || sc.Torn.Len != 9 {
				t.Fatalf("absurd length: %+v", sc)
			}
		})
	}
}

func mustScan(t *testing.T, b []byte) scan {
	t.Helper()
	sc, err := scanRecords(b)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestScanRecordsHeaderDamage(t *testing.T) {
	rec := appendRecord(nil, []byte(`{"a":1}`))
	newer := append([]byte(fileMagic), fileVersion+1)
	if _, err := scanRecords(append(newer, rec...)); !errors.Is(err, ErrNewerFormat) {
		t.Errorf("newer version: %v, want ErrNewerFormat", err)
	}
	// A flipped magic byte is a corrupt region before a good record.
	bad := append(fileHeader(), rec...)
	bad[1] ^= 0xff
	sc := mustScan(t, bad)
	if len(sc.Records) != 1 || len(sc.Bad) != 1 || sc.Bad[0] != (badRegion{0, fileHeaderBytes}) {
		t.Errorf("damaged magic: %+v", sc)
	}
	// A header cut short (a crash while creating the file) is a torn tail.
	sc = mustScan(t, fileHeader()[:3])
	if len(sc.Records) != 0 || sc.Torn != (badRegion{0, 3}) || sc.GoodEnd != 0 {
		t.Errorf("torn header: %+v", sc)
	}
}

// closedEpisode records a closed two-segment episode and returns its
// directory and what Load reads of it.
func closedEpisode(t *testing.T, dir string) (string, *Episode) {
	t.Helper()
	s := open(t, dir, Options{})
	w, err := s.Begin(Begin{Robot: "arm-01", Start: t0})
	must(t, err)
	must(t, w.Transition(Transition{Source: "/task_state", Stamp: at(0), Kind: "state", To: "reach", Opens: "reach"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, w.Segment(seg("grasp", 1, 2)))
	must(t, w.Close(at(2), Completed, EndIdle))
	must(t, s.Close())
	e, err := Load(dir, w.ID())
	must(t, err)
	return e.Dir, e
}

func TestRecordFilesStartWithHeader(t *testing.T) {
	epDir, _ := closedEpisode(t, t.TempDir())
	for _, name := range []string{segmentsName, transitionsName} {
		b, err := os.ReadFile(filepath.Join(epDir, name))
		must(t, err)
		if !bytes.HasPrefix(b, fileHeader()) {
			t.Errorf("%s starts with %q, want the header %q", name, b[:min(len(b), fileHeaderBytes)], fileHeader())
		}
	}
}

// stripHeaders turns an episode's record files into the format written
// before headers.
func stripHeaders(t *testing.T, epDir string) {
	t.Helper()
	for _, name := range []string{segmentsName, transitionsName} {
		path := filepath.Join(epDir, name)
		b, err := os.ReadFile(path)
		must(t, err)
		must(t, os.WriteFile(path, bytes.TrimPrefix(b, fileHeader()), 0o644))
	}
}

func TestReadsFilesWithoutHeader(t *testing.T) {
	dir := t.TempDir()
	epDir, want := closedEpisode(t, dir)
	stripHeaders(t, epDir)
	got, err := Load(dir, want.Manifest.ID)
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
	must(t, w.Transition(Transition{Source: "/task_state", Stamp: at(0), Kind: "state", To: "reach", Opens: "reach"}))
	must(t, w.Segment(seg("reach", 0, 1)))
	must(t, s.Close()) // the writer is left open, as a crash leaves it
	epDir := filepath.Join(dir, w.ID())
	stripHeaders(t, epDir)
	f, err := os.OpenFile(filepath.Join(epDir, segmentsName), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.Write(appendRecord(nil, []byte(`{"index":1,"label":"grasp"}`))[:11])
	must(t, err)
	must(t, f.Close())

	s2 := open(t, dir, Options{})
	if r := s2.Recovered(); len(r) != 1 || r[0].TornBytes != 11 {
		t.Fatalf("recovered = %+v", r)
	}
	e, err := Load(dir, w.ID())
	must(t, err)
	if len(e.Segments) == 0 || e.Segments[0].Label != "reach" || !e.Manifest.Closed || len(e.Problems) != 0 {
		t.Fatalf("after recovery: segments %+v closed %v problems %v", e.Segments, e.Manifest.Closed, e.Problems)
	}
	b, err := os.ReadFile(filepath.Join(epDir, segmentsName))
	must(t, err)
	if !bytes.HasPrefix(b, fileHeader()) {
		t.Error("repaired segments.rec has no header")
	}
}

// A file of a newer format is reported, not misread as corrupt records.
func TestNewerFormatIsReported(t *testing.T) {
	dir := t.TempDir()
	epDir, _ := closedEpisode(t, dir)
	path := filepath.Join(epDir, segmentsName)
	b, err := os.ReadFile(path)
	must(t, err)
	b[len(fileMagic)] = fileVersion + 1
	must(t, os.WriteFile(path, b, 0o644))
	e, err := Load(dir, filepath.Base(epDir))
	must(t, err)
	if len(e.Segments) != 0 || len(e.Problems) != 1 || !bytes.Contains([]byte(e.Problems[0]), []byte("newer edged")) {
		t.Fatalf("segments %+v problems %v", e.Segments, e.Problems)
	}
}
