package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestReadFrom: an object's URL names its bucket and key; a ranged read
// streams the object from any offset to its end; a missing object is
// fs.ErrNotExist.
func TestReadFrom(t *testing.T) {
	srv := s3test.Start(t)
	body := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	if _, err := open(t, srv, "fleet").Put("episodes/x/clips/c.mcap", body, blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	tg, key, err := ObjectOf(srv.URL("fleet")+"/episodes/x/clips/c.mcap", Options{Getenv: srv.Getenv})
	if err != nil || key != "fleet/episodes/x/clips/c.mcap" || tg.Bucket != srv.Bucket {
		t.Fatalf("ObjectOf: %+v %q %v", tg, key, err)
	}
	ctx := context.Background()
	if n, err := tg.Size(ctx, key); err != nil || n != int64(len(body)) {
		t.Fatalf("Size: %d, %v; want %d", n, err, len(body))
	}
	for _, off := range []int64{0, 1, 40000, int64(len(body)) - 1} {
		r, err := tg.ReadFrom(ctx, key, off)
		if err != nil {
			t.Fatalf("ReadFrom %d: %v", off, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, body[off:]) {
			t.Errorf("ReadFrom %d: %d bytes, %v; want the object's last %d", off, len(got), err, int64(len(body))-off)
		}
	}
	if _, err := tg.ReadFrom(ctx, "fleet/nope", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing object: %v", err)
	}
	if _, err := tg.Size(ctx, "fleet/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing object's size: %v", err)
	}
	for _, bad := range []string{"s3://bucket", "s3://bucket/", "http://x/y"} {
		if _, _, err := ObjectOf(bad, Options{Getenv: srv.Getenv}); err == nil {
			t.Errorf("ObjectOf(%q) took it for an object", bad)
		}
	}
}
