package s3store

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/edged-robotics/edged/episode/blobtest"
	"github.com/edged-robotics/edged/internal/s3test"
)

func open(t *testing.T, srv *s3test.Server, prefix string) *Store {
	t.Helper()
	s, err := Open(context.Background(), srv.URL(prefix), Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBlobs: the episode.Blobs contract on a real S3 server, the same
// table as for a directory.
func TestBlobs(t *testing.T) {
	srv := s3test.Start(t)
	s := open(t, srv, "fleet")
	if !s.Conditional {
		t.Fatal("versitygw refused no conditional write: conditional writes are not supported")
	}
	blobtest.Contract(t, s)
	if _, err := Open(context.Background(), "s3://missing/x", Options{Getenv: srv.Getenv}); err == nil {
		t.Error("a missing bucket opened")
	}
	if _, _, err := s.Get("nope", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
}
