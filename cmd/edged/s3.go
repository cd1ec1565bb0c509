package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/s3store"
)

// readable returns a local directory for p: p itself, or, for an object
// store URL (s3://BUCKET/PREFIX, a data_dir, an episodes/ directory or
// one episode), a mirror of it in the user's cache directory, brought up
// to date first (episode.Mirror), which the readers then read.
func readable(ctx context.Context, p string) (string, error) {
	if !s3store.IsURL(p) {
		return p, nil
	}
	r, err := openMirror(ctx, p)
	if err != nil {
		return "", err
	}
	return r.dir, r.fetch(r.dir, episode.MirrorOptions{})
}

// readableEpisode is readable for a store that one episode, ref, is read
// from (with ref "", a store to list, or one episode): an object store's
// mirror gets every episode's manifest and records, enough to list the
// store and find ref, and ref's episode whole; the other episodes' sheets,
// most of a fleet's bytes, stay in the store.
func readableEpisode(ctx context.Context, store, ref string) (string, error) {
	if !s3store.IsURL(store) {
		return store, nil
	}
	r, err := openMirror(ctx, store)
	if err != nil {
		return "", err
	}
	if err := r.fetch(r.dir, episode.MirrorOptions{RecordsOnly: true}); err != nil {
		return "", err
	}
	epDir := r.dir // the URL named one episode
	if ref != "" {
		if epDir, err = episode.Resolve(episode.StoreDir(r.dir), ref); err != nil {
			return r.dir, nil // not there: the reader says so
		}
		if _, ok := within(r.dir, epDir); !ok {
			return r.dir, nil // a local episode directory
		}
	} else if !episode.IsEpisodeDir(r.dir) {
		return r.dir, nil // a store to list: the records are what it reads
	}
	return r.dir, r.fetch(epDir, episode.MirrorOptions{})
}

// mirror is an object store read through a local copy in the user's
// cache directory.
type mirror struct {
	st  *s3store.Store
	url string
	dir string
}

func openMirror(ctx context.Context, url string) (*mirror, error) {
	st, err := s3store.Open(ctx, url, s3store.Options{})
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("a mirror of %s needs a cache directory: %w (set XDG_CACHE_HOME)", url, err)
	}
	return &mirror{st: st, url: url, dir: filepath.Join(cache, "edged", "s3", filepath.FromSlash(strings.TrimPrefix(url, "s3://")))}, nil
}

// within returns path relative to dir, and whether it is dir or below it.
func within(dir, path string) (rel string, ok bool) {
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// fetch brings the mirror's local directory local (r.dir or below it)
// up to date.
func (r *mirror) fetch(local string, o episode.MirrorOptions) error {
	rel, ok := within(r.dir, local)
	if !ok {
		return fmt.Errorf("reading %s: %s is not in its mirror %s", r.url, local, r.dir)
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel)
	}
	if err := episode.MirrorWith(r.st, prefix, local, o); err != nil {
		return fmt.Errorf("reading %s: %w", r.url, err)
	}
	return nil
}

// sinkStore opens the store of `edged sink --out`: an object store for
// s3://..., else nil (the directory).
func sinkStore(ctx context.Context, out string) (episode.Blobs, error) {
	if !s3store.IsURL(out) {
		return nil, nil
	}
	st, err := s3store.Open(ctx, out, s3store.Options{})
	if err != nil {
		return nil, err
	}
	if !st.Conditional {
		return nil, fmt.Errorf("%s ignores conditional writes (If-None-Match, If-Match): sinks sharing it could overwrite each other's manifests; use a store that has them (AWS S3, MinIO, versitygw)", out)
	}
	return st, nil
}
