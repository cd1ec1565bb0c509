package report

import (
	"bytes"
	"image"
	imgcolor "image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/sheet"
)

var t0 = time.Date(2026, 4, 22, 7, 22, 6, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type segSpec struct {
	label      string
	start, end float64
	outcome    string
}

// fixture is a recorded episode in a data_dir laid out like edged run's.
type fixture struct {
	dataDir, store, id, epDir string
	segs                      []segSpec
}

var pickPlace = []segSpec{
	{"reach", 0, 4.2, episode.Completed},
	{"grasp <bottle>", 4.2, 7.5, episode.Completed},
	{"lift_and_carry", 7.5, 19, episode.Completed},
	{"place", 19, 23.6, episode.Aborted},
}

// record writes an episode with segs through the episode store API.
func record(t testing.TB, segs []segSpec, instruction string) *fixture {
	t.Helper()
	f := &fixture{dataDir: t.TempDir(), segs: segs}
	f.store = filepath.Join(f.dataDir, "episodes")
	s, err := epstore.Open(f.store, epstore.Options{})
	must(t, err)
	defer s.Close()
	w, err := s.Begin(epstore.Begin{Robot: "arm-01", Start: t0, Instruction: instruction})
	must(t, err)
	for _, g := range segs {
		must(t, w.Segment(episode.Segment{Start: at(g.start), End: at(g.end), StartSec: g.start, EndSec: g.end,
			Label: g.label, Source: "/task/state", Kind: "string", Outcome: g.outcome}))
	}
	end := 0.0
	if len(segs) > 0 {
		end = segs[len(segs)-1].end
	}
	must(t, w.Close(at(end), episode.Completed, episode.EndIdle))
	f.id = w.ID()
	f.epDir = w.Dir()
	return f
}

// tinyJPEG draws a cols x rows grid of distinctly colored tiles.
func tinyJPEG(t testing.TB, cols, rows, tw, th int, seed int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, cols*tw, rows*th))
	for y := 0; y < rows*th; y++ {
		for x := 0; x < cols*tw; x++ {
			k := (y/th)*cols + x/tw + seed
			c := imgcolor.RGBA{uint8(40 + 37*k%200), uint8(90 + 53*k%150), uint8(160 - 29*k%120), 255}
			if x%tw < 3 || y%th < 3 {
				c = imgcolor.RGBA{20, 20, 20, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	must(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}))
	return b.Bytes()
}

const (
	testTileW, testTileH = 112, 63
	interval             = 0.5
)

// writeSheets writes n contact sheets of cols x rows tiles for camera
// under the episode, like edged run does, and returns the directory.
func (f *fixture) writeSheets(t testing.TB, camera string, n, cols, rows int) string {
	t.Helper()
	dir := filepath.Join(f.epDir, "sheets", sanitize(camera))
	w, err := sheet.NewDirWriter(dir)
	must(t, err)
	per := cols * rows
	for i := 0; i < n; i++ {
		m := meta("episode", camera, cols, rows)
		m.Index = i + 1
		for k := 0; k < per; k++ {
			tick := int64(i*per + k)
			m.Tiles = append(m.Tiles, tile(tick, k/cols, k%cols, k == 3))
		}
		s := &sheet.Sheet{Meta: m, JPEG: tinyJPEG(t, cols, rows, testTileW, testTileH, i)}
		s.Meta.Bytes = len(s.JPEG)
		must(t, w.Write(s))
	}
	return dir
}

// writeLabelSheets writes one labeling sheet per segment: up to 5 ticks
// sampled inside it.
func (f *fixture) writeLabelSheets(t testing.TB, camera string) {
	t.Helper()
	w, err := sheet.NewDirWriter(filepath.Join(f.epDir, "sheets", sanitize(camera)))
	must(t, err)
	for i, g := range f.segs {
		first, last := int64(g.start/interval+0.999), int64(g.end/interval)-1
		if last < first {
			last = first
		}
		n := min(5, int(last-first)+1)
		m := meta("label", camera, n, 1)
		for k := 0; k < n; k++ {
			tick := first
			if n > 1 {
				tick = first + int64(k)*(last-first)/int64(n-1)
			}
			m.Tiles = append(m.Tiles, tile(tick, 0, k, false))
		}
		s := &sheet.Sheet{Meta: m, JPEG: tinyJPEG(t, n, 1, testTileW, testTileH, 100+i)}
		must(t, w.Write(s))
	}
}

func meta(kind, camera string, cols, rows int) sheet.Meta {
	return sheet.Meta{Kind: kind, Camera: camera, EpisodeStart: sheet.ROSTimeOf(t0), IntervalSeconds: interval,
		Rows: rows, Columns: cols, TileWidth: testTileW, TileHeight: testTileH, Width: cols * testTileW,
		Height: rows * testTileH, Quality: 80, Tokens: 258}
}

func tile(tick int64, row, col int, placeholder bool) sheet.TileMeta {
	sec := float64(tick) * interval
	return sheet.TileMeta{Tick: tick, Seconds: sec, Stamp: sheet.ROSTimeOf(at(sec)), FrameSeconds: sec + 0.01,
		Placeholder: placeholder, Row: row, Column: col}
}

func sanitize(topic string) string {
	b := []byte(topic)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(bytes.Trim(b, "_"))
}

// annotation writes a cloud annotation in the VLM format.
func annotation(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vlm-gemini.json")
	must(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}
