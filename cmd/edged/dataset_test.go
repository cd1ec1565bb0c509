package main

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/edged-robotics/edged/dataset"
)

// strict decodes b into v refusing keys the documented schema lacks.
func strict(t *testing.T, what string, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s does not follow the documented schema: %v\n%s", what, err, b)
	}
}

// docSample is the JSON block docs/rtl.md marks <!-- sample: NAME -->.
func docSample(t *testing.T, name string) []byte {
	t.Helper()
	doc, err := os.ReadFile("../../docs/rtl.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- sample: " + name + " -->\n```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/rtl.md has no %s sample", name)
	}
	return m[1]
}

// TestExportVistaETP: the demo episode's ViSTa and ETP exports read back
// under the documented schemas, and docs/rtl.md's samples are what edged
// writes for it.
func TestExportVistaETP(t *testing.T) {
	data := simData(t)
	var v, doc dataset.Vista
	strict(t, "vista export", []byte(edged(t, true, "export", "--dir", data, "--format", "vista", "replay")), &v)
	strict(t, "docs' vista sample", docSample(t, "vista"), &doc)
	if v.Format != dataset.VistaFormat || v.Level != 6 || len(v.Steps) != 6 || v.Description == "" {
		t.Fatalf("vista: %+v", v)
	}
	epDir := filepath.Join(data, "episodes", v.Episode)
	for i, s := range v.Steps {
		if s.Step != i+1 || s.Description == "" || s.Action == "" || s.EndSec < s.StartSec || len(s.Sheets) != 1 {
			t.Errorf("step %+v", s)
		}
		for _, sh := range s.Sheets {
			if _, err := os.Stat(filepath.Join(epDir, sh.Path)); err != nil {
				t.Errorf("step %d: sheet %s: %v", s.Step, sh.Path, err)
			}
		}
	}
	v.Steps = v.Steps[:len(doc.Steps)]
	if !reflect.DeepEqual(doc, v) {
		t.Errorf("docs/rtl.md's vista sample is not what edged writes:\ndoc  %+v\nedged %+v", doc, v)
	}

	out := filepath.Join(t.TempDir(), "etp")
	edged(t, true, "export", "--dir", data, "--format", "etp", "-o", out, "replay")
	b, err := os.ReadFile(filepath.Join(out, dataset.ETPFile))
	if err != nil {
		t.Fatal(err)
	}
	var x, docX dataset.ETP
	strict(t, "etp export", b, &x)
	strict(t, "docs' etp sample", docSample(t, "etp"), &docX)
	if x.Format != dataset.ETPFormat || len(x.Plan) != 6 || x.Image != dataset.FrameFile || x.ImageSource == nil {
		t.Fatalf("etp: %+v", x)
	}
	for i, p := range x.Plan {
		if p.Step != i+1 || p.Action == "" || p.End.Before(p.Start) || (i > 0 && p.Start.Before(x.Plan[i-1].Start)) {
			t.Errorf("plan step %+v", p)
		}
	}
	f, err := os.ReadFile(filepath.Join(out, x.Image))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(f)); err != nil || cfg.Width != 224 {
		t.Errorf("first frame: %+v %v, want a 224-px-wide JPEG", cfg, err)
	}
	x.Plan = x.Plan[:len(docX.Plan)]
	if !reflect.DeepEqual(docX, x) {
		t.Errorf("docs/rtl.md's etp sample is not what edged writes:\ndoc  %+v\nedged %+v", docX, x)
	}
	if out := edged(t, false, "export", "--dir", data, "--format", "etp", "replay"); !regexp.MustCompile(`-o DIR`).MatchString(out) {
		t.Errorf("etp without -o: %s", out)
	}
}
