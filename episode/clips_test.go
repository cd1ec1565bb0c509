package episode

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestLoadListsClips: Load lists the clips of the layout (clips/, named
// by ClipName) by trigger time, and nothing else found there.
func TestLoadListsClips(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "arm-01-20260101T000000.000Z")
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	m, err := EncodeManifest(Manifest{Format: ManifestFormat, Robot: "arm-01", Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		ManifestFile: string(m),
		ClipsDir + "/" + ClipName(t0.Add(time.Second), "state"): "bb",
		ClipsDir + "/" + ClipName(t0, "request"):                "a",
		ClipsDir + "/.clip-x.mcap.tmp1":                         "partial",
		ClipsDir + "/notes.txt":                                 "x",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Load("", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Clip{{Name: "clip-20260101T000010.000Z-request.mcap", Bytes: 1}, {Name: "clip-20260101T000011.000Z-state.mcap", Bytes: 2}}
	if !reflect.DeepEqual(e.Clips, want) {
		t.Errorf("clips %+v, want %+v", e.Clips, want)
	}
	if got := ClipName(t0, "a/b c"); got != "clip-20260101T000010.000Z-a_b_c.mcap" {
		t.Errorf("ClipName of an unsafe kind: %s", got)
	}
}

func TestParseClipName(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	for _, tc := range []struct {
		name     string
		wantKind string
		ok       bool
	}{
		{ClipName(at, "state"), "state", true},
		{ClipName(at, "fsm.state/x"), "fsm_state_x", true},
		{"clip-nonsense-state.mcap", "", false},
		{"." + ClipName(at, "state") + ".tmp1", "", false},
		{"clip-20260102T030405.678Z.mcap", "", false},
	} {
		got, kind, ok := ParseClipName(tc.name)
		if ok != tc.ok || kind != tc.wantKind || (ok && !got.Equal(at)) {
			t.Errorf("ParseClipName(%q) = %v, %q, %v", tc.name, got, kind, ok)
		}
	}
}
