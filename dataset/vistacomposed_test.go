package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// TestVistaComposedSheets: the ViSTa sample of an episode whose robot
// shipped no labeling sheets names one per step and camera, composed
// from the contact sheets (sheet.LabelImage) into the export's own
// directory under the shipped names, never into the store; an episode
// with shipped ones keeps them as they were. (Steps had no sheets.)
func TestVistaComposedSheets(t *testing.T) {
	e, ep := fakeEpisode(t)
	if err := os.RemoveAll(filepath.Join(e.Dir, episode.LabelsDir)); err != nil {
		t.Fatal(err)
	}
	v, err := NewVista(e, ep)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	n, err := ComposeVistaSheets(out, &v, e, ep)
	if err != nil || n != 3 {
		t.Fatalf("%d composed, %v: want one per step", n, err)
	}
	var contact sheet.Sheet
	contact.JPEG, _ = os.ReadFile(filepath.Join(e.Dir, episode.SheetsDir, "cam", "sheet-0001.jpg"))
	m, err := readMeta(ep, "sheets/cam/sheet-0001.json")
	if err != nil {
		t.Fatal(err)
	}
	contact.Meta = *m
	for i, st := range v.Steps {
		s := steps(e)[i]
		want, err := sheet.LabelImage([]sheet.Sheet{contact}, s.StartSec, s.EndSec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Sheets) != 1 || st.Sheets[0] != (SheetRef{Camera: "cam", Path: "labels/cam/" + episode.LabelName(s.Index) + ".jpg", Composed: true}) {
			t.Fatalf("step %d: sheets %+v", st.Step, st.Sheets)
		}
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(st.Sheets[0].Path)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("step %d: %s is not the composed labeling sheet (%v)", st.Step, st.Sheets[0].Path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Dir, episode.LabelsDir)); !os.IsNotExist(err) {
		t.Errorf("the store got a labels/ directory (%v)", err)
	}
	if _, err := ComposeVistaSheets(filepath.Join(e.Dir, "x"), &Vista{Steps: []VistaStep{{}}}, e, ep); err == nil {
		t.Error("composing into the episode's directory: no error")
	}

	// Shipped: the sample is left as NewVista made it, nothing written.
	e, ep = fakeEpisode(t)
	v, _ = NewVista(e, ep)
	before := cloneVista(v)
	out = t.TempDir()
	if n, err := ComposeVistaSheets(out, &v, e, ep); n != 0 || err != nil || !reflect.DeepEqual(v, before) {
		t.Errorf("shipped: %d composed, %v, sample %+v", n, err, v)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("shipped: %d files written", len(ents))
	}
}

func cloneVista(v Vista) Vista {
	c := v
	c.Steps = nil
	for _, s := range v.Steps {
		s.Sheets = append([]SheetRef{}, s.Sheets...)
		c.Steps = append(c.Steps, s)
	}
	return c
}
