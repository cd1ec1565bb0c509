package s3

import (
	"context"
	"fmt"
)

// OpenShared opens the store at url (Open) for writers that share it,
// the sinks of a group: their receivers' writes of shared files are
// conditional (receive.Receiver), so a store that ignores conditional
// writes is refused rather than left to lose an episode.
func OpenShared(ctx context.Context, url string, o Options) (*Store, error) {
	s, err := Open(ctx, url, o)
	if err != nil {
		return nil, err
	}
	if err := s.RequireConditional(); err != nil {
		return nil, err
	}
	return s, nil
}

// RequireConditional fails with what to do unless Open's probe found
// that the store keeps conditional writes.
func (s *Store) RequireConditional() error {
	if s.Conditional {
		return nil
	}
	return fmt.Errorf("%s ignores conditional writes (If-None-Match, If-Match): sinks sharing it could overwrite each other's manifests; use a store that has them (AWS S3, MinIO, versitygw)", s.url)
}
