package s3

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob/blobtest"
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

// TestBlobs: the blob.Blobs contract on a real S3 server, the same
// table as for a directory.
func TestBlobs(t *testing.T) {
	srv := s3test.Start(t)
	s := open(t, srv, "fleet")
	if !s.Conditional {
		t.Fatal("versitygw refused no conditional write: conditional writes are not supported")
	}
	if !s.ETagMD5 {
		t.Error("versitygw's ETags were not taken for MD5s: Get cannot check a body against its ETag")
	}
	blobtest.Contract(t, s)
	if _, err := Open(context.Background(), "s3://missing/x", Options{Getenv: srv.Getenv}); err == nil {
		t.Error("a missing bucket opened")
	}
	if _, _, err := s.Get("nope", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
}

// TestGetRereadsAMismatch: a body read with the ETag of another write
// (versitygw pairs them so while writes race) is read again, and
// returned only with its own ETag; a mismatch that persists is an error,
// and a store whose ETags are not MD5s is not checked.
func TestGetRereadsAMismatch(t *testing.T) {
	etag := func(b string) string { sum := md5.Sum([]byte(b)); return `"` + hex.EncodeToString(sum[:]) + `"` }
	reads := []struct{ body, etag string }{{"old", etag("new")}, {"new", etag("old")}, {"new", etag("new")}}
	n := 0
	get := func() ([]byte, string, error) {
		r := reads[min(n, len(reads)-1)]
		n++
		return []byte(r.body), r.etag, nil
	}
	mismatch := func(e string) error { return errors.New("mismatch " + e) }
	b, v, err := consistentGet(get, true, mismatch)
	if err != nil || string(b) != "new" || v != etag("new") || n != 3 {
		t.Fatalf("got %q %s %v after %d reads, want new with its ETag after 3", b, v, err, n)
	}
	n = 0
	reads = reads[:1]
	if _, _, err := consistentGet(get, true, mismatch); err == nil || n != mismatchRereads+1 {
		t.Fatalf("a persistent mismatch: %v after %d reads, want an error after %d", err, n, mismatchRereads+1)
	}
	n = 0
	if b, _, err := consistentGet(get, false, mismatch); err != nil || string(b) != "old" || n != 1 {
		t.Fatalf("unchecked: %q %v after %d reads", b, err, n)
	}
	reads = []struct{ body, etag string }{{"x", `"` + strings.Repeat("0", 32) + `-2"`}}
	n = 0
	if _, _, err := consistentGet(get, true, mismatch); err != nil || n != 1 {
		t.Fatalf("a multipart ETag: %v after %d reads, want no check", err, n)
	}
}
