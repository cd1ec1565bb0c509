package remote

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
)

// Readable returns a local directory for p: p itself, or, for an object
// store URL (s3://BUCKET/PREFIX, a data_dir, an episodes/ directory or
// one episode), its mirror in the user's cache directory, brought up
// to date first (episode.MirrorWith), which the readers then read.
func Readable(ctx context.Context, p string) (string, error) {
	if !s3.IsURL(p) {
		return p, nil
	}
	m, err := OpenMirror(ctx, p, s3.Options{})
	if err != nil {
		return "", err
	}
	return m.Dir(), m.Fetch(m.Dir(), episode.MirrorOptions{})
}

// ReadableEpisode is Readable for a store that one episode, ref, is
// read from (with ref "", a store to list, or one episode): an object
// store's mirror gets every episode's manifest and records, enough to
// list the store and find ref, and ref's episode whole; the other
// episodes' sheets, most of a fleet's bytes, stay in the store.
func ReadableEpisode(ctx context.Context, store, ref string) (string, error) {
	if !s3.IsURL(store) {
		return store, nil
	}
	m, err := OpenMirror(ctx, store, s3.Options{})
	if err != nil {
		return "", err
	}
	if err := m.Fetch(m.dir, episode.MirrorOptions{RecordsOnly: true}); err != nil {
		return "", err
	}
	epDir := m.dir // the URL named one episode
	if ref != "" {
		if epDir, err = episode.Resolve(episode.StoreDir(m.dir), ref); err != nil {
			return m.dir, nil // not there: the reader says so
		}
		if _, ok := within(m.dir, epDir); !ok {
			return m.dir, nil // a local episode directory
		}
	} else if !episode.IsEpisodeDir(m.dir) {
		return m.dir, nil // a store to list: the records are what it reads
	}
	return m.dir, m.Fetch(epDir, episode.MirrorOptions{})
}

// Mirror is an object store read through a local copy in the user's
// cache directory: CACHE/edged/s3/BUCKET/PREFIX, so every URL has its
// own and a second read fetches only what changed.
type Mirror struct {
	st  *s3.Store
	url string
	dir string
}

// OpenMirror opens the store at url (Open) and names its mirror; it
// fetches nothing.
func OpenMirror(ctx context.Context, url string, o s3.Options) (*Mirror, error) {
	st, err := s3.Open(ctx, url, o)
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("a mirror of %s needs a cache directory: %w (set XDG_CACHE_HOME)", url, err)
	}
	dir := filepath.Join(cache, "edged", "s3", filepath.FromSlash(strings.TrimPrefix(url, "s3://")))
	return &Mirror{st: st, url: url, dir: dir}, nil
}

// Dir is the mirror's local directory.
func (m *Mirror) Dir() string { return m.dir }

// Fetch brings local, the mirror's directory or one below it, up to
// date with the store.
func (m *Mirror) Fetch(local string, o episode.MirrorOptions) error {
	rel, ok := within(m.dir, local)
	if !ok {
		return fmt.Errorf("reading %s: %s is not in its mirror %s", m.url, local, m.dir)
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel)
	}
	if err := episode.MirrorWith(m.st, prefix, local, o); err != nil {
		return fmt.Errorf("reading %s: %w", m.url, err)
	}
	return nil
}

// within returns path relative to dir, and whether it is dir or below it.
func within(dir, path string) (rel string, ok bool) {
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

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
