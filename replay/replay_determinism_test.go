package replay_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
)

// TestReplayIsDeterministic: edged replay of the same bag twice gives
// byte-for-byte identical episode stores. The episode open at the end
// of a recording used to close at its last stamp plus the wall time the
// replay took, and manifests carried the wall clock (created). Only the
// store's lock file differs (it holds the writing process's pid).
func TestReplayIsDeterministic(t *testing.T) {
	tmp := t.TempDir()
	bag, _ := pipelinetest.SimBag(t, tmp)
	for _, tc := range []struct{ name, fsm string }{
		{"idle states end the episode", `[{topic: /task/state, type: string, idle_states: [IDLE]}]`},
		{"the episode is open at the end", `[{topic: /task/state, type: string}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(`
robot_id: sim-01
cameras: [{topic: /camera/color/image_raw/compressed, name: top}]
fsm: ` + tc.fsm + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			pipelinetest.ReplayBag(t, cfg, a, bag)
			pipelinetest.ReplayBag(t, cfg, b, bag)
			sameTree(t, filepath.Join(a, episode.EpisodesDir), filepath.Join(b, episode.EpisodesDir))
		})
	}
}

// sameTree: every file but the lock is in both trees with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || e.Name() == ".lock" {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out[rel], err = os.ReadFile(p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%d files in the first store, %d in the second", len(fa), len(fb))
	}
	for name, da := range fa {
		if db, ok := fb[name]; !ok {
			t.Errorf("%s: only in the first store", name)
		} else if !bytes.Equal(da, db) {
			t.Errorf("%s differs:\n%s\n%s", name, head(da), head(db))
		}
	}
}

func head(b []byte) []byte {
	if len(b) > 400 {
		return b[:400]
	}
	return b
}
