package remote

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
)

// Open opens the store an object store URL names for the blob readers
// (episode.ListBlobs, LoadBlobs), which read it without a mirror: the
// URL is a data_dir (its episodes/ is the store), an episodes/
// directory, or one episode (then id is its id and store its store).
func Open(ctx context.Context, url string) (store blob.Blobs, id string, err error) {
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(url, "s3://"), "/")
	st, err := s3.Open(ctx, "s3://"+bucket, s3.Options{})
	if err != nil {
		return nil, "", err
	}
	under := func(p string) blob.Blobs {
		if p = strings.Trim(p, "/"); p == "" {
			return st
		}
		return blob.Sub(st, p)
	}
	prefix = strings.Trim(prefix, "/")
	parent, base := path.Split(prefix)
	if base != "" && episode.IsEpisodeIn(under(parent), base) {
		return under(parent), base, nil
	}
	b := under(prefix)
	l, err := b.List(episode.EpisodesDir + "/")
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", url, err)
	}
	if len(l) > 0 {
		return blob.Sub(b, episode.EpisodesDir), "", nil
	}
	return b, "", nil
}

// OpenEpisode opens the store episode ref is read from and names ref
// in it, for episode.LoadBlobs and the readers of an episode's files
// (blob.Sub(store, id)): ref is an episode directory or an episode's
// URL, else an id (or a unique prefix of one) in store, a data_dir or
// an episodes/ directory, local (blob.Dir) or an s3:// URL. Nothing is
// copied to disk.
func OpenEpisode(ctx context.Context, store, ref string) (blob.Blobs, string, error) {
	switch {
	case s3.IsURL(ref):
		b, id, err := Open(ctx, ref)
		if err == nil && id == "" {
			err = fmt.Errorf("%s is not an episode (give an episode's URL: .../episodes/ID, or its id and its store)", ref)
		}
		return b, id, err
	case episode.IsEpisodeDir(ref):
		return episode.OpenDir(ref)
	case s3.IsURL(store):
		b, _, err := Open(ctx, store)
		return b, ref, err
	case store == "" || filepath.Base(ref) != ref: // a path, never an id: not store's to blame
		return episode.OpenDir(ref)
	}
	return blob.Dir{Root: episode.StoreDir(store)}, ref, nil
}
