package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
)

// `edged inspect --json` speaks one snake_case schema: the list and one
// episode alike (one episode used to print Go field names, Manifest and
// Dir, beside the manifest's snake_case keys).
func TestInspectJSONIsSnakeCase(t *testing.T) {
	data, epDir := recordEpisode(t, []segSpec{{"reach", 0, 3}, {"grasp", 3, 4.5}})
	id := filepath.Base(epDir)
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		list bool
	}{
		{"list", []string{"inspect", data, "--json"}, true},
		{"empty list", []string{"inspect", empty, "--json"}, true},
		{"episode directory", []string{"inspect", epDir, "--json"}, false},
		{"episode id", []string{"inspect", data, id, "--json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := edged(t, true, tc.args...)
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if bad := nonSnakeKeys(v, ""); len(bad) > 0 {
				t.Errorf("keys that are not snake_case: %v\n%s", bad, out)
			}
			if tc.list {
				if _, ok := v.([]any); !ok {
					t.Errorf("the list is not a JSON array: %s", out)
				}
				return
			}
			obj, _ := v.(map[string]any)
			var keys []string
			for k := range obj {
				keys = append(keys, k)
			}
			if len(keys) != 6 || obj["dir"] != epDir {
				t.Errorf("episode keys %v (dir %v), want manifest, dir, segments, transitions, problems, cost", keys, obj["dir"])
			}
			// the cost line: the manifest and records are other bytes,
			// no camera, so nothing per camera-hour
			if c, _ := obj["cost"].(map[string]any); c == nil || c["other_bytes"].(float64) <= 0 ||
				c["bytes"] != c["other_bytes"] || c["vlm_tokens"].(float64) != 0 || c["tokens_per_camera_hour"].(float64) != 0 {
				t.Errorf("cost %v", obj["cost"])
			}
			for _, k := range []string{"segments", "transitions", "problems"} {
				if _, ok := obj[k].([]any); !ok {
					t.Errorf("%s is %v, want a list ([] when empty)", k, obj[k])
				}
			}
			if segs, _ := obj["segments"].([]any); len(segs) != 2 {
				t.Errorf("%d segments, want 2", len(segs))
			}
			// the manifest is the on-disk manifest.json, unchanged
			b, err := os.ReadFile(filepath.Join(epDir, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var disk map[string]any
			if err := json.Unmarshal(b, &disk); err != nil {
				t.Fatal(err)
			}
			disk["id"] = id // Load names the episode by its directory
			if !reflect.DeepEqual(obj["manifest"], disk) {
				t.Errorf("manifest %v\nis not manifest.json %v", obj["manifest"], disk)
			}
		})
	}
	if out := edged(t, true, "inspect", empty, "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty store: %q, want []", out)
	}
}

// TestInspectListsClips: edged inspect lists an episode's clips, in its
// table and its JSON: those in its clips/ and those its manifest (a
// receiver's) says are elsewhere, with where.
func TestInspectListsClips(t *testing.T) {
	_, epDir := recordEpisode(t, []segSpec{{"reach", 0, 3}})
	name := episode.ClipName(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC), "request")
	if err := os.MkdirAll(episode.ClipDir(epDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(episode.ClipDir(epDir), name), []byte("mcap"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 9, 0, time.UTC)
	remote := episode.ClipEntry{Name: episode.ClipName(at, "state"), Kind: "state", At: at, Bytes: 10, Where: episode.ClipOnRobot}
	m, err := episode.ReadManifest(epDir)
	if err != nil {
		t.Fatal(err)
	}
	m.Clips = []episode.ClipEntry{remote}
	b, err := episode.EncodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(epDir, episode.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := edged(t, true, "inspect", epDir); !strings.Contains(out, name+"  4 bytes  here") ||
		!strings.Contains(out, remote.Name+"  10 bytes  robot") {
		t.Errorf("the table does not list the clips:\n%s", out)
	}
	var v struct{ Clips []view.ClipPlace }
	if err := json.Unmarshal([]byte(edged(t, true, "inspect", epDir, "--json")), &v); err != nil ||
		len(v.Clips) != 2 || v.Clips[0].Name != name || v.Clips[1].Where != episode.ClipOnRobot {
		t.Errorf("JSON clips %+v (%v)", v.Clips, err)
	}
}
