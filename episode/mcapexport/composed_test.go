package mcapexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/sheet"
)

// TestComposedLabels: an episode whose robot shipped no labeling sheets
// (sheet.ship_label_sheets off) exports one per segment on
// /edged/labels/CAMERA at its start, composed from the contact sheets
// (sheet.LabelImage, byte for byte); an older episode's shipped ones
// are exported as they are. (Composed ones were missing.)
func TestComposedLabels(t *testing.T) {
	for _, shipped := range []bool{false, true} {
		t.Run(fmt.Sprintf("shipped=%v", shipped), func(t *testing.T) {
			store, id := storedEpisode(t)
			dir := filepath.Join(store.(blob.Dir).Root, id)
			sheets := realSheets(t, filepath.Join(dir, episode.SheetsDir, cam), 21)
			if !shipped {
				if err := os.RemoveAll(filepath.Join(dir, episode.LabelsDir)); err != nil {
					t.Fatal(err)
				}
			}
			e, err := episode.LoadBlobs(store, id)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			res, err := Write(&buf, e, store)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) != 1 || res.Messages[TopicLabelsPrefix+cam] != 2 {
				t.Fatalf("messages %v, problems %q: want 2 labeling sheets and the bad snippet", res.Messages, res.Problems)
			}
			for i, img := range labelImages(t, buf.Bytes()) {
				s := e.Segments[i]
				want, err := sheet.LabelImage(sheets, s.StartSec, s.EndSec, nil)
				if shipped {
					want, err = os.ReadFile(filepath.Join(dir, episode.LabelsDir, cam, episode.LabelName(s.Index)+".jpg"))
				}
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(img, want) {
					t.Errorf("segment %d: the labeling sheet exported is not %s", s.Index, map[bool]string{false: "the composed one", true: "the shipped file"}[shipped])
				}
			}
		})
	}
}

// labelImages are the JPEGs of /edged/labels/cam in an export, in order.
func labelImages(t *testing.T, b []byte) [][]byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "e.mcap")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := mcap.Open(path, mcap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out [][]byte
	it := r.Messages(TopicLabelsPrefix + cam)
	defer it.Close()
	for it.Next() {
		var img msg.CompressedImage
		if err := msg.DecodeCompressedImage(it.Message().Data, &img); err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), img.Data...))
	}
	return out
}

// realSheets replaces the contact sheets in dir by real ones of a
// camera at 2 fps for end seconds (a colour per frame), and returns
// them with their JPEGs.
func realSheets(t *testing.T, dir string, end int) []sheet.Sheet {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	var paths []string
	for i := range 2 * end {
		img := image.NewRGBA(image.Rect(0, 0, 64, 48))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = uint8(i*37), uint8(i*91), uint8(255-i*13), 255
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, nil); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(tmp, fmt.Sprintf("f%04d.jpg", i)))
		if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sheet.BuildFiles(paths, sheet.FPSStamps(len(paths), 2), sheet.DefaultRecipe(), cam, dir); err != nil {
		t.Fatal(err)
	}
	var out []sheet.Sheet
	for i := 1; ; i++ {
		name := filepath.Join(dir, episode.SheetName(i))
		j, err := os.ReadFile(name + ".jpg")
		if err != nil {
			break
		}
		m, err := os.ReadFile(name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		s := sheet.Sheet{JPEG: j}
		if err := json.Unmarshal(m, &s.Meta); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no contact sheets built")
	}
	return out
}
