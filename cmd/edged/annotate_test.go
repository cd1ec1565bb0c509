package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

// TestAnnotateStore runs edged annotate over a store twice against a
// fake API: the first run annotates, the second asks nothing; the key,
// given in a file, is in no output and no stored file, nor is a wrong
// key in the error that reports it.
func TestAnnotateStore(t *testing.T) {
	const key, wrong, model = "sk-cli-SECRET-31415926", "sk-cli-WRONG-27182818", "test-vlm"
	segs := []segSpec{{"reach", 0, 4}, {"grasp cup", 4, 8}, {"place cup", 8, 12}}
	dataDir, epDir := recordEpisode(t, segs)
	writeTestSheets(t, epDir, 12)
	srv := vlmtest.New(t, key, model, func(r vlmtest.Request) vlmtest.Reply {
		if r.SchemaName == "segments" {
			var b strings.Builder
			for i, s := range segs {
				fmt.Fprintf(&b, `%s{"start_sec":%g,"end_sec":%g,"subtask":%q}`, map[bool]string{true: ",", false: ""}[i > 0], s.start, s.end, s.label)
			}
			return vlmtest.Reply{Content: `{"segments":[` + b.String() + `]}`}
		}
		return vlmtest.Reply{Content: `{"label":"move the cup"}`}
	})
	keyFile := filepath.Join(t.TempDir(), "key")
	wrongFile := filepath.Join(t.TempDir(), "wrong")
	must(t, os.WriteFile(keyFile, []byte(key+"\n"), 0o600))
	must(t, os.WriteFile(wrongFile, []byte(wrong), 0o600))
	args := []string{"annotate", "--model", model, "--base-url", srv.URL, "--retries", "0"}

	out := edged(t, false, append(args, "--api-key-file", wrongFile, dataDir)...)
	if !strings.Contains(out, "401") || strings.Contains(out, wrong) {
		t.Fatalf("wrong key: %s", out)
	}
	out = edged(t, true, append(args, "--api-key-file", keyFile, dataDir)...)
	if !strings.Contains(out, "1 annotations written (0 invalid)") {
		t.Fatalf("first run: %s", out)
	}
	n := len(srv.Requests())
	out += edged(t, true, append(args, "--api-key-file", keyFile, dataDir)...)
	if len(srv.Requests()) != n || !strings.Contains(out, "0 episodes to annotate") {
		t.Fatalf("second run asked %d more: %s", len(srv.Requests())-n, out)
	}
	out += edged(t, true, append(args, "--api-key-file", keyFile, epDir)...)
	if len(srv.Requests()) != n || !strings.Contains(out, "already annotated (same key)") {
		t.Fatalf("episode run asked %d more: %s", len(srv.Requests())-n, out)
	}
	if strings.Contains(out, key) {
		t.Fatalf("the key is in the output: %s", out)
	}
	name := episode.AnnotationName(model, strings.TrimSpace(promptVersion(t)), episode.ModeSegment, "front")
	b, err := os.ReadFile(filepath.Join(epDir, episode.AnnotationsDir, name+".json"))
	must(t, err)
	var a episode.Annotation
	must(t, json.Unmarshal(b, &a))
	if len(a.Segments) != 3 || a.Requests != 4 || a.Segments[1].Subtask != "move the cup" {
		t.Fatalf("annotation %+v", a)
	}
	must(t, filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("the key is in %s", p)
			}
		}
		return err
	}))
}

func promptVersion(t *testing.T) string {
	out := edged(t, true, "annotate", "--print-prompts")
	if !strings.Contains(out, "==> segment.txt <==") {
		t.Fatalf("--print-prompts: %s", out)
	}
	_, v, _ := strings.Cut(out, "==> version.txt <==\n")
	v, _, _ = strings.Cut(v, "\n")
	return v
}

// writeTestSheets builds the contact sheets of camera "front" from
// synthetic frames at 2 fps by the sheet recipe into epDir.
func writeTestSheets(t *testing.T, epDir string, end float64) {
	tmp := t.TempDir()
	n := int(end*2) + 1
	paths := make([]string, n)
	for i := range paths {
		img := image.NewGray(image.Rect(0, 0, 160, 120))
		for j := range img.Pix {
			img.Pix[j] = uint8(i * 9)
		}
		var b bytes.Buffer
		must(t, jpeg.Encode(&b, img, nil))
		paths[i] = filepath.Join(tmp, fmt.Sprintf("f%03d.jpg", i))
		must(t, os.WriteFile(paths[i], b.Bytes(), 0o644))
	}
	_, err := sheet.BuildFiles(paths, sheet.FPSStamps(n, 2), sheet.DefaultRecipe(), "front", episode.SheetDir(epDir, "front"))
	must(t, err)
}
