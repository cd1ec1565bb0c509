package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/s3test"
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

// TestAnnotateObjectStore: a store in a real S3 server (versitygw) is
// annotated where it is, the key taken from OPENAI_API_KEY and the base
// URL from OPENAI_BASE_URL, as the SDK reads them.
func TestAnnotateObjectStore(t *testing.T) {
	const key, model = "sk-env-SECRET-16180339", "test-vlm"
	srv := s3test.Start(t)
	dataDir, epDir := recordEpisode(t, []segSpec{{"reach", 0, 4}, {"grasp cup", 4, 8}})
	writeTestSheets(t, epDir, 8)
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	must(t, err)
	copyBlobs(t, blob.Dir{Root: dataDir}, st)
	api := vlmtest.New(t, key, model, func(r vlmtest.Request) vlmtest.Reply {
		if r.SchemaName == "segments" {
			return vlmtest.Reply{Content: `{"segments":[{"start_sec":0,"end_sec":4,"subtask":"reach"},{"start_sec":4,"end_sec":8,"subtask":"grasp"}]}`}
		}
		return vlmtest.Reply{Content: `{"label":"grasp the cup"}`}
	})
	env := append(os.Environ(), "OPENAI_API_KEY="+key, "OPENAI_BASE_URL="+api.URL)
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	out, errOut, err := edgedWithin(t, env, time.Minute, "annotate", "--model", model, srv.URL("fleet"))
	if err != nil || !strings.Contains(out, "1 annotations written (0 invalid)") || strings.Contains(out+errOut, key) {
		t.Fatalf("annotate %s: %v\n%s%s", srv.URL("fleet"), err, out, errOut)
	}
	store := blob.Sub(st, episode.EpisodesDir)
	names, err := episode.Annotations(store, filepath.Base(epDir))
	if err != nil || len(names) != 1 {
		t.Fatalf("annotations in the object store: %v, %v", names, err)
	}
}

// copyBlobs copies every blob of src into dst.
func copyBlobs(t *testing.T, src, dst blob.Blobs) {
	t.Helper()
	list, err := src.List("")
	must(t, err)
	for _, f := range list {
		b, _, err := src.Get(f.Name, f.Size+1)
		must(t, err)
		_, err = dst.Put(f.Name, b, blob.Cond{})
		must(t, err)
	}
}
