package episode

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// episodeFiles are one episode's files, named relative to it with
// slashes, wherever they are: an episode directory (dirFiles) or the
// blobs of a store (blobFiles), so one reader reads both.
type episodeFiles struct {
	id    string // the episode's id: its directory's or prefix's name
	where string // for Episode.Dir and messages
	// read returns a file (at most max bytes); an error wrapping
	// fs.ErrNotExist when it is absent.
	read func(name string, max int64) ([]byte, error)
	// list lists every file of the episode.
	list func() ([]blob.Info, error)
	// exists reports whether the file is there, without reading it.
	exists func(name string) bool
	// created is when the episode was created, when its files say
	// (a rebuilt manifest's Created); zero when they do not.
	created func() time.Time
}

func dirFiles(dir string) episodeFiles {
	return episodeFiles{
		id:    filepath.Base(dir),
		where: dir,
		read: func(name string, max int64) ([]byte, error) {
			return fsutil.ReadFileCapped(filepath.Join(dir, filepath.FromSlash(name)), max)
		},
		list:   func() ([]blob.Info, error) { return listFiles(dir) },
		exists: func(name string) bool { return exists(filepath.Join(dir, name)) },
		created: func() time.Time {
			if st, err := os.Stat(dir); err == nil {
				return st.ModTime().UTC()
			}
			return time.Time{}
		},
	}
}

// blobFiles are the files of episode id in store b (b rooted at the
// store's episodes/). A file the caller's cap refuses is read as
// ErrTooLarge, as from a directory.
func blobFiles(b blob.Blobs, id string) episodeFiles {
	prefix := id + "/"
	return episodeFiles{
		id:    id,
		where: b.String() + "/" + id,
		read: func(name string, max int64) ([]byte, error) {
			body, _, err := b.Get(prefix+name, max)
			return body, err
		},
		list: func() ([]blob.Info, error) {
			l, err := b.List(prefix)
			for i := range l {
				l[i].Name = l[i].Name[len(prefix):]
			}
			return l, err
		},
		exists: func(name string) bool {
			_, _, err := b.Get(prefix+name, 0) // the size is checked first: nothing is read
			return err == nil || errors.Is(err, blob.ErrTooLarge)
		},
		created: func() time.Time { return time.Time{} },
	}
}

// isRecordFile reports whether the file named (relative to a store)
// is an episode's manifest or one of its record files: what makes a
// directory an episode.
func isRecordFile(name string) bool {
	switch path.Base(name) {
	case manifestName, segmentsName, transitionsName:
		return true
	}
	return false
}

// writeFileAtomic writes a whole file of a local copy of a store
// (mirror.go), creating its directory.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}
