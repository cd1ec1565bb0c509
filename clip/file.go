package clip

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// write writes j's clip into its episode's clips directory: a temporary
// file beside it, fsynced, checked against the budget (older clips
// deleted to make room), renamed into place, the directory fsynced.
func (s *Stage) write(j *job) Result {
	res := j.res
	dir := episode.ClipDir(j.trig.Episode.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return failed(res, fmt.Errorf("clip: %w (is the episode still in the store?)", err))
	}
	f, err := os.CreateTemp(dir, "."+j.name+tmpInfix+"*")
	if err != nil {
		return failed(res, fmt.Errorf("clip: %w", err))
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	c := s.content(j)
	sum := sha256.New()
	w, err := writeMCAP(io.MultiWriter(f, sum), &s.dialect, c, s.enc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(res, fmt.Errorf("clip: writing %s: %w", j.name, err))
	}
	res.Frames, res.Lost, res.Bytes, res.SHA256 = w.frames, w.lost, w.bytes, hex.EncodeToString(sum.Sum(nil))
	if w.bytes > s.cfg.MaxBytes {
		res.Skipped = SkipBudget
		res.Err = fmt.Errorf("%w: %s: %d bytes alone exceed clips.max_bytes (%d): raise it, or shorten clips.pre and clips.post",
			ErrSkipped, SkipBudget, w.bytes, s.cfg.MaxBytes)
		return res
	}
	s.makeRoom(w.bytes)
	res.Path = filepath.Join(dir, j.name)
	if err := os.Rename(tmp, res.Path); err != nil {
		return failed(res, fmt.Errorf("clip: %w", err))
	}
	if err := fsutil.SyncDir(dir); err != nil {
		return failed(res, fmt.Errorf("clip: %w", err))
	}
	return res
}

func failed(res Result, err error) Result {
	res.Skipped, res.Err = SkipFailed, err
	return res
}

// content lists what j's clip holds, now that its window ended.
func (s *Stage) content(j *job) *content {
	c := &content{cams: listWindow(s.opts.Cameras(), j.from, j.to)}
	c.joints, c.trans, c.segs = s.hist.window(j.from, j.to)
	c.meta = map[string]string{
		"episode": j.trig.Episode.ID, "trigger": string(j.trig.Kind), "reason": j.trig.Reason,
		"trigger_time": j.trig.Time.UTC().Format(time.RFC3339Nano),
		"window_start": j.from.UTC().Format(time.RFC3339Nano), "window_end": j.to.UTC().Format(time.RFC3339Nano),
	}
	return c
}

// finish records what became of j, logs it, hands a written clip to
// Options.OnWritten and releases its waiters.
func (s *Stage) finish(j *job, res Result) {
	s.record(j, res)
	if res.Err == nil && s.opts.OnWritten != nil {
		s.opts.OnWritten(res)
	}
	close(j.done)
}

func (s *Stage) record(j *job, res Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j.res = res
	if res.Err != nil {
		s.stats.Skipped[res.Skipped]++
		s.log.Warn("clip: not written", "name", j.name, "episode", res.Episode, "kind", j.trig.Kind,
			"skipped", res.Skipped, "err", res.Err)
		return
	}
	s.stats.Written++
	s.stats.Bytes += uint64(res.Bytes)
	s.stats.LostFrames += uint64(res.Lost)
	l := s.log.Info
	if res.Lost > 0 {
		l = s.log.Warn // the ring overwrote part of the window while the clip was written
	}
	l("clip: written", "path", res.Path, "frames", res.Frames, "lost_frames", res.Lost, "bytes", res.Bytes)
}

// storedClip is one clip file of the store, for the budget.
type storedClip struct {
	path string
	name string
	size int64
}

// makeRoom deletes the oldest clips of the store (by trigger time, the
// order of their names) until size more fit clips.max_bytes. Clips go
// before any episode: the store's retention comes after.
func (s *Stage) makeRoom(size int64) {
	clips, total := s.storedClips()
	for len(clips) > 0 && total+size > s.cfg.MaxBytes {
		c := clips[0]
		clips = clips[1:]
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("clip: could not delete an old clip for the budget", "path", c.path, "err", err)
			continue
		}
		total -= c.size
		s.mu.Lock()
		s.stats.Deleted++
		s.mu.Unlock()
		s.log.Info("clip: deleted for clips.max_bytes", "path", c.path, "bytes", c.size)
	}
}

// storedClips lists every clip of the store, oldest trigger first.
func (s *Stage) storedClips() ([]storedClip, int64) {
	paths, _ := filepath.Glob(filepath.Join(s.opts.StoreDir, "*", episode.ClipsDir, episode.ClipPrefix+"*"+episode.ClipExt))
	var clips []storedClip
	var total int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		clips = append(clips, storedClip{path: p, name: filepath.Base(p), size: st.Size()})
		total += st.Size()
	}
	slices.SortFunc(clips, func(a, b storedClip) int { return strings.Compare(a.name, b.name) })
	return clips, total
}

// tmpInfix marks a clip being written (".NAME.tmpRANDOM"): readers and
// the budget never see it; removeStale deletes those a crash left.
const tmpInfix = ".tmp"

// removeStale deletes the temporary files of clips a crash or a kill
// left half-written in the store.
func (s *Stage) removeStale() {
	paths, _ := filepath.Glob(filepath.Join(s.opts.StoreDir, "*", episode.ClipsDir, "."+episode.ClipPrefix+"*"+episode.ClipExt+tmpInfix+"*"))
	for _, p := range paths {
		if err := os.Remove(p); err == nil {
			s.log.Info("clip: deleted a clip left half-written", "path", p)
		}
	}
}
