package annotate

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/sheet"
)

const (
	testKey   = "sk-annotate-SECRET-424242"
	testModel = "test-vlm"
	testCam   = "front"
)

var t0 = time.Date(2026, 4, 22, 7, 22, 6, 0, time.UTC)

type truthSeg struct {
	label      string
	start, end float64
}

// pickPlace is the ground truth of the test episodes (26 s).
var pickPlace = []truthSeg{{"reach the cup", 0, 4.5}, {"grasp the cup", 4.5, 9}, {"carry the cup to the tray", 9, 20}, {"place the cup on the tray", 20, 26}}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// testStore is a store (an episodes/ directory) and its blobs.
type testStore struct {
	dir string
	b   blob.Blobs
}

func newStore(t testing.TB) *testStore {
	dir := filepath.Join(t.TempDir(), "episodes")
	return &testStore{dir: dir, b: blob.Dir{Root: dir}}
}

// record writes an episode of segs through the episode store, with
// contact sheets built from synthetic frames (2 fps) by the sheet
// recipe, and a labeling sheet per segment; it returns its id.
func (s *testStore) record(t testing.TB, segs []truthSeg, start time.Time) string {
	t.Helper()
	st, err := store.Open(s.dir, store.Options{})
	must(t, err)
	defer st.Close()
	w, err := st.Begin(store.Begin{Robot: "arm-01", Start: start, Instruction: "put the cup on the tray"})
	must(t, err)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	for _, g := range segs {
		must(t, w.Segment(episode.Segment{Start: at(g.start), End: at(g.end), StartSec: g.start, EndSec: g.end,
			Label: g.label, Source: "/task/state", Kind: "string", Outcome: episode.Completed}))
	}
	end := segs[len(segs)-1].end
	must(t, w.Close(at(end), episode.Completed, episode.EndIdle))
	writeSheets(t, w.Dir(), end)
	writeLabels(t, w.Dir(), len(segs))
	return w.ID()
}

func frame(t testing.TB, k int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 160, 120))
	c := color.RGBA{uint8(30 + 7*k%200), uint8(200 - 5*k%180), uint8(60 + 11*k%190), 255}
	for i := range img.Pix {
		if i%4 == 3 {
			img.Pix[i] = 255
		} else {
			img.Pix[i] = [3]uint8{c.R, c.G, c.B}[i%4]
		}
	}
	var b bytes.Buffer
	must(t, jpeg.Encode(&b, img, nil))
	return b.Bytes()
}

// built caches the contact sheets of an episode end seconds long, by
// end: building them is most of a test's time under -race.
var built sync.Map // float64 -> map[string][]byte

func writeSheets(t testing.TB, epDir string, end float64) {
	files, ok := built.Load(end)
	if !ok {
		files = buildSheets(t, end)
		built.Store(end, files)
	}
	dir := episode.SheetDir(epDir, testCam)
	must(t, os.MkdirAll(dir, 0o755))
	for name, b := range files.(map[string][]byte) {
		must(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
}

// buildSheets builds the sheets of synthetic frames at 2 fps by the
// sheet recipe, and returns their files.
func buildSheets(t testing.TB, end float64) map[string][]byte {
	tmp := t.TempDir()
	n := int(end*2) + 1
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(tmp, fmt.Sprintf("f%04d.jpg", i))
		must(t, os.WriteFile(paths[i], frame(t, i), 0o644))
	}
	out := filepath.Join(tmp, "sheets")
	_, err := sheet.BuildFiles(paths, sheet.FPSStamps(n, 2), sheet.DefaultRecipe(), testCam, out)
	must(t, err)
	files := map[string][]byte{}
	ents, err := os.ReadDir(out)
	must(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), episode.SheetPrefix) {
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			must(t, err)
			files[e.Name()] = b
		}
	}
	return files
}

func writeLabels(t testing.TB, epDir string, n int) {
	w, err := sheet.NewDirWriter(episode.LabelDir(epDir, testCam))
	must(t, err)
	for i := range n {
		must(t, w.Write(&sheet.Sheet{JPEG: frame(t, 100+i), Meta: sheet.Meta{Kind: "label", Camera: testCam, Width: 160, Height: 120,
			Tokens: 258, Segment: &sheet.SegmentMeta{Index: i}}}))
	}
}
