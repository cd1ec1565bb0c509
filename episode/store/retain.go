package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/edged-robotics/edged/episode"
)

// enforceRetention deletes clips, then closed episodes, beyond the
// budgets (see retainLocked).
func (s *Store) enforceRetention() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retainLocked()
}

// budget is what retention measures against Options while it deletes.
type budget struct {
	s     *Store
	total int64 // bytes of every episode directory
	count int   // episodes
	free  int64 // free bytes of the file system (-1: unknown)
}

func (b *budget) overBytes() bool { return b.s.opts.MaxBytes >= 0 && b.total > b.s.opts.MaxBytes }
func (b *budget) overCount() bool { return b.s.opts.MaxEpisodes >= 0 && b.count > b.s.opts.MaxEpisodes }
func (b *budget) underFloor() bool {
	return b.s.opts.MinFreeBytes >= 0 && b.free >= 0 && b.free < b.s.opts.MinFreeBytes
}

// candidate is a closed episode retention may delete.
type candidate struct {
	m     episode.Manifest
	bytes int64
}

// retainLocked applies the budgets with s.mu held. Over MaxBytes or
// under the free-space floor (MinFreeBytes) it deletes clips first,
// oldest trigger first across every episode (the open one's too), and
// only then closed episodes: uploaded ones oldest first, then the others
// oldest first; over MaxEpisodes it deletes episodes.
func (s *Store) retainLocked() error {
	infos, err := episode.List(s.dir)
	if err != nil {
		return err
	}
	b := budget{s: s, count: len(infos), free: s.checkFree()}
	var all []candidate
	for _, m := range infos {
		n := dirBytes(filepath.Join(s.dir, m.ID))
		b.total += n
		if m.Closed && (s.active == nil || s.active.m.ID != m.ID) {
			all = append(all, candidate{m, n})
		}
	}
	freed := s.deleteClips(&b)
	for i := range all {
		all[i].bytes -= freed[all[i].m.ID]
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].m.Uploaded != all[j].m.Uploaded {
			return all[i].m.Uploaded
		}
		return all[i].m.Start.Before(all[j].m.Start)
	})
	for _, c := range all {
		if !b.overBytes() && !b.overCount() && !b.underFloor() {
			break
		}
		if err := os.RemoveAll(filepath.Join(s.dir, c.m.ID)); err != nil {
			err = fmt.Errorf("episode: retention: delete %s: %w", c.m.ID, err)
			s.note(OpRetain, err)
			return err
		}
		s.opts.Logger.Info("episode store: retention deleted an episode", "episode", c.m.ID, "bytes", c.bytes,
			"uploaded", c.m.Uploaded, "over_keep_bytes", b.overBytes(), "over_keep_episodes", b.overCount(), "under_min_free", b.underFloor())
		b.total -= c.bytes
		b.count--
		s.deleted++
		if b.underFloor() {
			b.free = s.checkFree()
		}
	}
	s.note(OpRetain, nil)
	return nil
}

// storedClip is one finished clip of the store.
type storedClip struct {
	episode string // its episode's id (directory name)
	name    string // episode.ClipName: sorts by trigger time
	path    string
	size    int64
}

// deleteClips deletes clips, oldest trigger first, while the store is
// over MaxBytes or under the free-space floor, and returns the bytes
// freed per episode. A clip the clip stage deleted meanwhile (its own
// budget) counts as freed, not as deleted here.
func (s *Store) deleteClips(b *budget) map[string]int64 {
	freed := map[string]int64{}
	if !b.overBytes() && !b.underFloor() {
		return freed
	}
	for _, c := range s.storedClips() {
		if !b.overBytes() && !b.underFloor() {
			break
		}
		err := os.Remove(c.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.note(OpRetain, fmt.Errorf("episode: retention: delete clip %s: %w", c.path, err))
			continue
		}
		if err == nil {
			s.clipsDeleted++
			s.clipBytesDeleted += c.size
			s.opts.Logger.Info("episode store: retention deleted a clip", "episode", c.episode, "clip", c.name,
				"bytes", c.size, "over_keep_bytes", b.overBytes(), "under_min_free", b.underFloor())
		}
		b.total -= c.size
		freed[c.episode] += c.size
		if b.underFloor() {
			b.free = s.checkFree()
		}
	}
	return freed
}

// storedClips lists the finished clips of every episode, oldest trigger
// first. A clip being written is a temporary file whose name is not a
// clip's (episode.IsClipName), so retention never touches it: the clip
// stage renames it into place when it is whole.
func (s *Store) storedClips() []storedClip {
	dirs, _ := os.ReadDir(s.dir)
	var clips []storedClip
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		cdir := episode.ClipDir(filepath.Join(s.dir, d.Name()))
		files, _ := os.ReadDir(cdir)
		for _, f := range files {
			if !f.Type().IsRegular() || !episode.IsClipName(f.Name()) {
				continue
			}
			if fi, err := f.Info(); err == nil {
				clips = append(clips, storedClip{episode: d.Name(), name: f.Name(), path: filepath.Join(cdir, f.Name()), size: fi.Size()})
			}
		}
	}
	slices.SortFunc(clips, func(a, b storedClip) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.episode, b.episode))
	})
	return clips
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
