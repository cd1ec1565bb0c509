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
	st, err := s3store.Open(ctx, p, s3store.Options{})
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("a mirror of %s needs a cache directory: %w (set XDG_CACHE_HOME)", p, err)
	}
	dir := filepath.Join(cache, "edged", "s3", filepath.FromSlash(strings.TrimPrefix(p, "s3://")))
	if err := episode.Mirror(st, "", dir); err != nil {
		return "", fmt.Errorf("reading %s: %w", p, err)
	}
	return dir, nil
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
