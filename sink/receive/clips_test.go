package receive

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

func clipOf(at time.Time, where string) episode.ClipEntry {
	return episode.ClipEntry{Name: episode.ClipName(at, "state"), Kind: "state", At: at, Bytes: 42,
		SHA256: strings.Repeat("c", 64), Where: where}
}

// TestReceiverListsClips: clips announced before the start, between
// start and end, and after the episode completed are all listed in its
// manifest with where they are; an upload's announcement moves a clip
// (by two receivers sharing the store, through conditional writes);
// announcing again writes nothing; the episode stays complete and its
// end manifest is not taken for another.
func TestReceiverListsClips(t *testing.T) {
	id := "arm-01-20231114T221320.000Z"
	dir, r, counts := sharedPair(t)
	manifestPuts := func() int { return counts[0].Puts[episode.ManifestFile] + counts[1].Puts[episode.ManifestFile] }
	start, end, msgs := sharedEpisode(id, 2)
	early, late := clipOf(t0.Add(time.Second), episode.ClipOnRobot), clipOf(t0.Add(9*time.Second), episode.ClipOnRobot)
	step := func(what string, f func() (bool, error)) {
		t.Helper()
		if _, err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("early clip", func() (bool, error) { return r[0].Clip("arm-01", id, early) })
	step("start", func() (bool, error) { return r[1].Manifest("arm-01", start) })
	for i, m := range msgs {
		step("message", func() (bool, error) { return m(r[i%2]) })
	}
	step("end", func() (bool, error) { return r[0].Manifest("arm-01", end) })
	step("late clip", func() (bool, error) { return r[1].Clip("arm-01", id, late) })
	uploaded := early
	uploaded.Where, uploaded.Bytes, uploaded.SHA256 = "s3://fleet/clips/"+early.Name, 0, ""
	step("early clip uploaded", func() (bool, error) { return r[1].Clip("arm-01", id, uploaded) })
	step("end again", func() (bool, error) { return r[0].Manifest("arm-01", end) })

	puts := manifestPuts()
	step("late clip again", func() (bool, error) { return r[0].Clip("arm-01", id, late) })
	step("upload again", func() (bool, error) { return r[0].Clip("arm-01", id, uploaded) })
	if n := manifestPuts(); n != puts {
		t.Errorf("announcing again wrote %d times", n-puts)
	}
	got, err := episode.Load(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	early.Where = uploaded.Where
	late.At, early.At = late.At.UTC(), early.At.UTC()
	if want := []episode.ClipEntry{early, late}; !reflect.DeepEqual(got.Manifest.Clips, want) {
		t.Errorf("clips %+v, want %+v", got.Manifest.Clips, want)
	}
	if !got.Manifest.Complete || got.Manifest.Outcome != episode.Completed {
		t.Errorf("manifest %+v", got.Manifest)
	}
}

// TestReceiverRefusesClips: hostile announcements are refused, nothing
// written; beyond episode.MaxClips too.
func TestReceiverRefusesClips(t *testing.T) {
	dir := t.TempDir()
	// Without fsync: MaxClips manifest writes.
	r, err := Open(dir, Options{WriteFile: func(p string, b []byte) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, b, 0o644)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	good := clipOf(t0, episode.ClipOnRobot)
	for name, c := range map[string]episode.ClipEntry{
		"traversal": {Name: "clip-20231114T221320.000Z-../../x.mcap", Kind: "../../x", At: t0, Where: episode.ClipOnRobot},
		"where":     {Name: good.Name, Kind: good.Kind, At: t0, Where: "/etc/passwd"},
		"kind":      {Name: good.Name, Kind: "goal", At: t0, Where: episode.ClipOnRobot},
	} {
		if _, err := r.Clip("arm-01", rid, c); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", name, err)
		}
	}
	if _, err := r.Clip("arm-02", rid, good); !errors.Is(err, ErrRefused) {
		t.Errorf("another robot's episode: %v, want ErrRefused", err)
	}
	if ms, _ := episode.List(dir); len(ms) != 0 {
		t.Errorf("refused announcements wrote %+v", ms)
	}
	for i := range episode.MaxClips {
		if _, err := r.Clip("arm-01", rid, clipOf(t0.Add(time.Duration(i)*time.Millisecond), episode.ClipOnRobot)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Clip("arm-01", rid, clipOf(t0.Add(time.Hour), episode.ClipOnRobot)); !errors.Is(err, ErrRefused) {
		t.Errorf("clip %d: %v, want ErrRefused", episode.MaxClips+1, err)
	}
	conflict := good
	conflict.Bytes++
	if _, err := r.Clip("arm-01", rid, conflict); !errors.Is(err, ErrConflict) {
		t.Errorf("another size: %v, want ErrConflict", err)
	}
}
