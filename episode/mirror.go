package episode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/edged-robotics/edged/blob"
)

// Mirror copies the blobs under prefix of b into dir (named without the
// prefix), so that the readers (List, Load, ReadCost), which read
// directories, read a store kept in an object store: inspect, score,
// export and report take s3:// through it. Files a receiver writes once
// are fetched when absent or of another size; the manifest and the
// record files, which change, every time. The sink's own files (dot
// names) are left out.
func Mirror(b blob.Blobs, prefix, dir string) error {
	return MirrorWith(b, prefix, dir, MirrorOptions{})
}

// MirrorOptions choose what a mirror fetches and how.
type MirrorOptions struct {
	// RecordsOnly fetches only each episode's manifest and record files
	// (segments, transitions): what List and Resolve read, a few KB an
	// episode, where the sheets are most of a store's bytes. A fleet's
	// store is listed this way, then the one episode wanted is mirrored
	// whole.
	RecordsOnly bool
	// Workers is how many blobs are fetched at once (default 8): on an
	// object store each GET is a round trip, and a mirror of many small
	// files is bound by their latency, not by bandwidth.
	Workers int
}

// MirrorWith is Mirror with options. A prefix names a folder: "a/b"
// mirrors what is under a/b/, never a/b-2/.
func MirrorWith(b blob.Blobs, prefix, dir string, o MirrorOptions) error {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	list, err := b.List(prefix)
	if err != nil {
		return err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = 8
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for _, f := range list {
		rel := strings.TrimPrefix(f.Name, prefix)
		if rel == "" || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") {
			continue
		}
		changes := isRecordFile(rel)
		if o.RecordsOnly && !changes {
			continue
		}
		local := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(local); err == nil && fi.Size() == f.Size && !changes {
			continue
		}
		g.Go(func() error { return mirrorOne(b, f.Name, local, dir) })
	}
	return g.Wait()
}

func mirrorOne(b blob.Blobs, name, local, dir string) error {
	body, _, err := b.Get(name, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since listed
	}
	if err != nil {
		return fmt.Errorf("episode: mirror %s: %w", name, err)
	}
	if err := writeFileAtomic(local, body); err != nil {
		return fmt.Errorf("episode: mirror into %s: %w", dir, err)
	}
	return nil
}
