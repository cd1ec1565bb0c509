package dataset

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/sheet"
)

// ComposeVistaSheets gives the steps of v, the ViSTa sample of an
// episode e (its files ep) whose robot shipped no labeling sheets
// (sheet.ship_label_sheets off), the labeling sheets composed from its
// contact sheets (sheet.LabelImage, as annotate and report compose
// them): written into the export's own directory out, never into the
// store, under the names the shipped ones had (labels/CAMERA/
// label-SSSS.jpg), each SheetRef with Composed set and its Path relative
// to out. A sample that has labeling sheets is left as it is. It
// returns how many it wrote. Only the contact sheets a segment's tiles
// come from are read for it, and dropped after.
func ComposeVistaSheets(out string, v *Vista, e *episode.Episode, ep blob.Blobs) (int, error) {
	for _, st := range v.Steps {
		if len(st.Sheets) > 0 {
			return 0, nil // shipped
		}
	}
	if e.Dir != "" && within(out, e.Dir) {
		return 0, fmt.Errorf("export vista: %s is inside the episode %s: write the sample elsewhere (-o), the store is never written", out, e.Dir)
	}
	contact, err := listed(ep, episode.SheetsDir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, cam := range contact.cameras() {
		sheets, names, err := contactMetas(ep, cam, contact.byCam[cam])
		if err != nil {
			return n, err
		}
		load := func(i int) ([]byte, error) {
			b, _, err := ep.Get(names[i], maxSheetBytes)
			return b, err
		}
		for i, s := range steps(e) {
			img, err := sheet.LabelImage(sheets, s.StartSec, s.EndSec, load)
			if err != nil {
				return n, fmt.Errorf("export vista: the labeling sheet of segment %d, camera %s: %w", s.Index, cam, err)
			}
			rel := path.Join(episode.LabelsDir, cam, episode.LabelName(s.Index)+".jpg")
			if err := writeComposed(filepath.Join(out, filepath.FromSlash(rel)), img); err != nil {
				return n, err
			}
			v.Steps[i].Sheets = append(v.Steps[i].Sheets, SheetRef{Camera: cam, Path: rel, Composed: true})
			n++
		}
	}
	return n, nil
}

// contactMetas reads the metadata of camera cam's contact sheets (files:
// its listed file names), returned without JPEGs, with each one's JPEG
// name relative to the episode.
func contactMetas(ep blob.Blobs, cam string, files []string) ([]sheet.Sheet, []string, error) {
	var sheets []sheet.Sheet
	var names []string
	for _, f := range files {
		if !strings.HasPrefix(f, episode.SheetPrefix) || !strings.HasSuffix(f, ".json") {
			continue
		}
		base := path.Join(episode.SheetsDir, cam, strings.TrimSuffix(f, ".json"))
		m, err := readMeta(ep, base+".json")
		if err != nil {
			return nil, nil, err
		}
		sheets = append(sheets, sheet.Sheet{Meta: *m})
		names = append(names, base+".jpg")
	}
	return sheets, names, nil
}

func writeComposed(p string, img []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("export vista: %w", err)
	}
	if err := fsutil.WriteFileAtomic(p, img); err != nil {
		return fmt.Errorf("export vista: %w", err)
	}
	return nil
}

// within: path p is dir or inside it.
func within(p, dir string) bool {
	ap, err1 := filepath.Abs(p)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ad, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
