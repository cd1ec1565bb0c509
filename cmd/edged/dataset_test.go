package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

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

// docSchema is the key table of the docs/rtl.md section whose heading
// starts with heading: each documented key path (steps[].sheets[].path)
// with its type (string, int, number, object, [string], [object]).
func docSchema(t *testing.T, heading string) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/rtl.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := regexp.MustCompile("(?s)\n## " + regexp.QuoteMeta(heading) + ".*?\n(## |$)").Find(doc)
	if sec == nil {
		t.Fatalf("docs/rtl.md has no section %q", heading)
	}
	schema := map[string]string{}
	row := regexp.MustCompile("(?m)^\\| (`[^|]*`) \\| ([^|]+) \\|")
	for _, m := range row.FindAllSubmatch(sec, -1) {
		keys := regexp.MustCompile("`([^`]+)`").FindAllSubmatch(m[1], -1)
		types := strings.Split(strings.TrimSpace(string(m[2])), ", ")
		for i, k := range keys {
			schema[string(k[1])] = types[min(i, len(types)-1)]
		}
	}
	if len(schema) == 0 {
		t.Fatalf("docs/rtl.md section %q has no key table", heading)
	}
	return schema
}

// jsonSchema lists every key path of v (decoded JSON) with its type as
// docSchema writes them; arrays of scalars are typed by their elements
// ([string]), an empty array as [].
func jsonSchema(v any, path string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if path != "" {
			out[path] = "object"
			path += "."
		}
		for k, e := range x {
			jsonSchema(e, path+k, out)
		}
	case []any:
		elem := map[string]string{}
		for _, e := range x {
			jsonSchema(e, path+"[]", elem)
		}
		out[path] = "[" + elem[path+"[]"] + "]"
		delete(elem, path+"[]")
		for k, typ := range elem {
			out[k] = typ
		}
	case string:
		out[path] = "string"
	case float64:
		out[path] = "number"
		if x == float64(int64(x)) {
			out[path] = "int|number"
		}
	default:
		out[path] = fmt.Sprintf("%T", v)
	}
}

// checkSchema: b has exactly the documented keys, each of its
// documented type.
func checkSchema(t *testing.T, what string, b []byte, doc map[string]string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got := map[string]string{}
	jsonSchema(v, "", got)
	for k, typ := range got {
		want, ok := doc[k]
		switch {
		case !ok:
			t.Errorf("%s: key %s (%s) is not documented in docs/rtl.md", what, k, typ)
		case typ == "int|number" && (want == "int" || want == "number"):
		case typ == "[]" && strings.HasPrefix(want, "["):
		case typ != want:
			t.Errorf("%s: key %s is %s, documented as %s", what, k, typ, want)
		}
	}
	for k := range doc {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: documented key %s is missing", what, k)
		}
	}
}

// TestExportVistaETP: the demo episode's ViSTa and ETP exports read back
// under the documented schemas (docs/rtl.md's key tables: every key
// documented, of its documented type, and every documented key there),
// and docs/rtl.md's samples are what edged writes for it.
func TestExportVistaETP(t *testing.T) {
	data := simData(t)
	var v, doc dataset.Vista
	// -o: the robot shipped no labeling sheets (the default), so the
	// export composes them beside the sample.
	sample := filepath.Join(t.TempDir(), "vista.json")
	edged(t, true, "export", "--dir", data, "--format", "vista", "-o", sample, "replay")
	vb, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, "vista export", vb, docSchema(t, "ViSTa export"))
	strict(t, "vista export", vb, &v)
	strict(t, "docs' vista sample", docSample(t, "vista"), &doc)
	if v.Format != dataset.VistaFormat || v.Level != 6 || len(v.Steps) != 6 || v.Description == "" {
		t.Fatalf("vista: %+v", v)
	}
	for i, s := range v.Steps {
		if s.Step != i+1 || s.Description == "" || s.Action == "" || s.EndSec < s.StartSec || len(s.Sheets) != 1 {
			t.Errorf("step %+v", s)
		}
		for _, sh := range s.Sheets {
			if _, err := os.Stat(filepath.Join(filepath.Dir(sample), sh.Path)); err != nil || !sh.Composed {
				t.Errorf("step %d: sheet %s (composed %v): %v", s.Step, sh.Path, sh.Composed, err)
			}
		}
	}
	// On stdout nothing can be composed: the sample has no sheets, and
	// stderr says how to get them.
	stdout, stderr, err := edgedWithin(t, os.Environ(), time.Minute, "export", "--dir", data, "--format", "vista", "replay")
	var plain dataset.Vista
	if err != nil || json.Unmarshal([]byte(stdout), &plain) != nil || !noSheets(plain) ||
		!strings.Contains(stderr, "give -o FILE to compose them") {
		t.Errorf("vista on stdout: err %v, steps %+v, stderr %q", err, plain.Steps, stderr)
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
	checkSchema(t, "etp export", b, docSchema(t, "ETP-Bench export"))
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
