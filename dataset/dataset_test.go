package dataset

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeEpisode is an episode directory with a 2x1 contact sheet whose
// first tile is a placeholder and whose second is red, and its files.
func fakeEpisode(t *testing.T) (*episode.Episode, blob.Blobs) {
	dir := t.TempDir()
	e := &episode.Episode{Dir: dir, Manifest: episode.Manifest{ID: "arm-01-x", Robot: "arm-01", Instruction: "put the banana in the closet"}}
	for i, l := range []string{"pick(banana)", "PUT_IN_CLOSET", "place(banana, closet)"} {
		e.Segments = append(e.Segments, episode.Segment{Index: i, Start: t0.Add(time.Duration(i) * time.Second),
			End: t0.Add(time.Duration(i+1) * time.Second), StartSec: float64(i), EndSec: float64(i + 1), Label: l, Outcome: "completed"})
	}
	e.Segments[0], e.Segments[2] = e.Segments[2], e.Segments[0] // Steps come in start order whatever the order read
	sd := filepath.Join(dir, episode.SheetsDir, "cam")
	ld := filepath.Join(dir, episode.LabelsDir, "cam")
	os.MkdirAll(sd, 0o755)
	os.MkdirAll(ld, 0o755)
	os.WriteFile(filepath.Join(ld, "label-0001.jpg"), []byte("x"), 0o644)
	img := image.NewRGBA(image.Rect(0, 0, 20, 10))
	for x := 10; x < 20; x++ {
		for y := range 10 {
			img.Set(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 95})
	os.WriteFile(filepath.Join(sd, "sheet-0001.jpg"), b.Bytes(), 0o644)
	meta, _ := json.Marshal(sheet.Meta{Kind: "episode", Index: 1, TileWidth: 10, TileHeight: 10, Width: 20, Height: 10, Quality: 90,
		Tiles: []sheet.TileMeta{{Placeholder: true}, {Column: 1, Seconds: 0.5, Stamp: sheet.ROSTimeOf(t0)}}})
	os.WriteFile(filepath.Join(sd, "sheet-0001.json"), meta, 0o644)
	return e, blob.Dir{Root: dir}
}

func TestVista(t *testing.T) {
	v, err := NewVista(fakeEpisode(t))
	if err != nil {
		t.Fatal(err)
	}
	if v.Level != 3 || v.Description != "We pick banana, then we put in closet, then we place banana closet." {
		t.Fatalf("level %d, description %q", v.Level, v.Description)
	}
	s := v.Steps[2]
	if s.Step != 3 || s.Action != "place" || len(s.Args) != 2 || s.StartSec != 2 || s.EndSec != 3 {
		t.Errorf("step 3: %+v", s)
	}
	if len(v.Steps[1].Sheets) != 1 || v.Steps[1].Sheets[0].Path != "labels/cam/label-0001.jpg" || len(v.Steps[0].Sheets) != 0 {
		t.Errorf("sheets %+v %+v", v.Steps[0].Sheets, v.Steps[1].Sheets)
	}
}

func TestETP(t *testing.T) {
	out := t.TempDir()
	e, ep := fakeEpisode(t)
	x, err := WriteETP(out, e, ep)
	if err != nil {
		t.Fatal(err)
	}
	if x.Image != FrameFile || x.ImageSource.Tile != 1 || x.ImageSource.Seconds != 0.5 || len(x.Plan) != 3 || x.Plan[0].Action != "pick" {
		t.Fatalf("%+v %+v", x, x.ImageSource)
	}
	b, _ := os.ReadFile(filepath.Join(out, FrameFile))
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 10 || img.Bounds().Dy() != 10 {
		t.Fatalf("first frame: %v %v", err, img)
	}
	if r, g, _, _ := img.At(5, 5).RGBA(); r < 0xc000 || g > 0x4000 {
		t.Errorf("first frame is not the red tile: %v", img.At(5, 5))
	}
	// Bad metadata is an error, never a panic.
	e, ep = fakeEpisode(t)
	meta, _ := json.Marshal(sheet.Meta{TileWidth: 50, TileHeight: 10, Tiles: []sheet.TileMeta{{Column: 3}}})
	ep.Put(path.Join(episode.SheetsDir, "cam", "sheet-0001.json"), meta, blob.Cond{})
	if _, err := WriteETP(t.TempDir(), e, ep); err == nil {
		t.Error("a tile outside the sheet: no error")
	}
	// No sheets: no image; exported into the directory of an earlier
	// export, that one's image goes (a stale first_frame.jpg would pass
	// for this episode's).
	if x, err := WriteETP(out, e, blob.Dir{Root: t.TempDir()}); err != nil || x.Image != "" || x.ImageSource != nil {
		t.Errorf("no sheets: %+v %v", x, err)
	}
	if _, err := os.Stat(filepath.Join(out, FrameFile)); !os.IsNotExist(err) {
		t.Errorf("the earlier export's %s is still there (%v) beside an etp.json without image", FrameFile, err)
	}
}
