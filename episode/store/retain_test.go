package store

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// TestRetentionDeletesClipsFirst: over keep_bytes or under the free-space
// floor, clips go first, oldest trigger first across episodes, and only
// then episodes; a clip being written (a temporary file) is never
// touched; keep_episodes deletes episodes, not clips.
func TestRetentionDeletesClipsFirst(t *testing.T) {
	const clipSize, tmpSize, floor = 10_000, 100, 1 << 20
	clipAt := []float64{5, 8, 15, 25} // trigger times; episodes start at 0, 10, 20
	for _, tc := range []struct {
		name string
		// set returns the options under test, given the bytes of the
		// episodes without clips (base) and the store's directory.
		set          func(base int64, dir string) Options
		wantClips    []float64 // triggers of the clips kept
		wantEpisodes []int     // episodes kept
		clipsDeleted int       // by retention itself (keep_episodes deletes clips with their episode)
	}{
		{"within keep_bytes", func(base int64, _ string) Options { return Options{MaxBytes: base + 4*clipSize + tmpSize} },
			clipAt, []int{0, 1, 2}, 0},
		{"over by one clip", func(base int64, _ string) Options { return Options{MaxBytes: base + 3*clipSize + tmpSize} },
			clipAt[1:], []int{0, 1, 2}, 1},
		{"oldest clips across episodes", func(base int64, _ string) Options { return Options{MaxBytes: base + clipSize + tmpSize} },
			clipAt[3:], []int{0, 1, 2}, 3},
		{"every clip, then the oldest episode", func(base int64, _ string) Options { return Options{MaxBytes: base + tmpSize - 1} },
			nil, []int{1, 2}, 4},
		{"under the floor", func(_ int64, dir string) Options {
			capacity := floor + dirBytes(dir) - 2*clipSize // the floor holds once two clips are gone
			return Options{MinFreeBytes: floor, FreeBytes: func(string) (int64, error) { return capacity - dirBytes(dir), nil }}
		}, clipAt[2:], []int{0, 1, 2}, 2},
		{"keep_episodes deletes episodes, not clips", func(int64, string) Options { return Options{MaxEpisodes: 2} },
			clipAt[2:], []int{1, 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, Options{MaxBytes: -1, MaxEpisodes: -1, MinFreeBytes: -1})
			var ids []string
			for i := range 3 {
				w, err := s.Begin(Begin{Robot: "r", Start: at(float64(i * 10))})
				must(t, err)
				must(t, w.Segment(seg("a", float64(i*10), float64(i*10+1))))
				must(t, w.Close(at(float64(i*10+9)), episode.Completed, episode.EndIdle))
				ids = append(ids, w.ID())
			}
			var base int64
			for _, id := range ids {
				base += dirBytes(filepath.Join(dir, id))
			}
			for _, sec := range clipAt {
				writeFile(t, filepath.Join(episode.ClipDir(filepath.Join(dir, ids[int(sec)/10])), episode.ClipName(at(sec), "state")), clipSize)
			}
			tmp := filepath.Join(episode.ClipDir(filepath.Join(dir, ids[2])), "."+episode.ClipName(at(26), "state")+".tmp123")
			writeFile(t, tmp, tmpSize)

			var logs bytes.Buffer
			o := tc.set(base, dir)
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			o.defaults()
			s.opts = o
			must(t, s.enforceRetention())

			var wantNames, wantIDs []string
			for _, sec := range tc.wantClips {
				wantNames = append(wantNames, episode.ClipName(at(sec), "state"))
			}
			for _, i := range tc.wantEpisodes {
				wantIDs = append(wantIDs, ids[i])
			}
			var gotNames, gotIDs []string
			for _, c := range s.storedClips() {
				gotNames = append(gotNames, c.name)
			}
			ms, _ := episode.List(dir)
			for _, m := range ms {
				gotIDs = append(gotIDs, m.ID)
			}
			if !slices.Equal(gotNames, wantNames) || !slices.Equal(gotIDs, wantIDs) {
				t.Fatalf("kept clips %v episodes %v, want %v and %v\n%s", gotNames, gotIDs, wantNames, wantIDs, logs.String())
			}
			checkDeletedReport(t, s, &logs, tc.clipsDeleted, 3-len(tc.wantEpisodes))
			if _, err := os.Stat(tmp); err != nil {
				t.Fatalf("the clip being written was touched: %v", err)
			}
		})
	}
}

// checkDeletedReport checks that retention's stats and log say what it
// deleted: clips and episodes.
func checkDeletedReport(t *testing.T, s *Store, logs *bytes.Buffer, goneClips, goneEpisodes int) {
	t.Helper()
	st := s.Stats()
	if st.ClipsDeleted != goneClips || st.ClipBytesDeleted != int64(goneClips)*10_000 || st.Deleted != goneEpisodes {
		t.Fatalf("stats: %d clips (%d bytes), %d episodes deleted; want %d clips, %d episodes",
			st.ClipsDeleted, st.ClipBytesDeleted, st.Deleted, goneClips, goneEpisodes)
	}
	if n := strings.Count(logs.String(), "retention deleted a clip"); n != goneClips {
		t.Fatalf("%d clip deletions logged, want %d:\n%s", n, goneClips, logs)
	}
	if n := strings.Count(logs.String(), "retention deleted an episode"); n != goneEpisodes {
		t.Fatalf("%d episode deletions logged, want %d:\n%s", n, goneEpisodes, logs)
	}
}

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, make([]byte, size), 0o644))
}
