package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"time"

	"github.com/minio/minio-go/v7"
)

// ObjectOf is the target and key of an object's s3:// URL
// (s3://BUCKET/KEY, as Target.ObjectURL writes it): the bucket is the
// target, the whole path the key. No I/O.
func ObjectOf(raw string, o Options) (*Target, string, error) {
	bucket, prefix, err := ParseURL(raw)
	if err != nil || prefix == "" {
		return nil, "", fmt.Errorf("s3: %q is not an object's URL, s3://BUCKET/KEY", raw)
	}
	t, err := NewTarget("s3://"+bucket, o)
	if err != nil {
		return nil, "", err
	}
	return t, prefix[:len(prefix)-1], nil
}

// Size is the size of the object at key (a HEAD), fs.ErrNotExist
// when there is none.
func (t *Target) Size(ctx context.Context, key string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	st, err := t.Core.StatObject(ctx, t.Bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return 0, t.wrap(key, err)
	}
	return st.Size, nil
}

// ReadFrom streams the object at key from byte off to its end (a
// ranged GET): nothing is held in memory beyond the reader's buffer,
// so a multi-GB clip is read as it is written out. The caller closes
// the body; ctx bounds the whole read (a body may take longer than
// one request's Timeout), the Timeout the wait for the answer.
func (t *Target) ReadFrom(ctx context.Context, key string, off int64) (io.ReadCloser, error) {
	opts := minio.GetObjectOptions{}
	if off > 0 {
		if err := opts.SetRange(off, 0); err != nil {
			return nil, fmt.Errorf("s3: %w", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	late := time.AfterFunc(t.Timeout, cancel) // the answer's headers within Timeout
	body, _, _, err := t.Core.GetObject(ctx, t.Bucket, key, opts)
	if !late.Stop() && err == nil {
		body.Close()
		err = fmt.Errorf("no answer within %s", t.Timeout)
	}
	if err != nil {
		cancel()
		return nil, t.wrap(key, err)
	}
	return &cancelOnClose{ReadCloser: body, cancel: cancel}, nil
}

// cancelOnClose releases the read's context with its body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// wrap maps a missing object onto fs.ErrNotExist and says where.
func (t *Target) wrap(key string, err error) error {
	where := "s3://" + t.Bucket + "/" + key
	r := minio.ToErrorResponse(err)
	switch {
	case r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound && r.Code != "NoSuchBucket":
		return fmt.Errorf("s3: %s: %w", where, fs.ErrNotExist)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("s3: %s: %w", where, err)
	}
	return fmt.Errorf("s3: %s: %w (the store or the network failed; try again)", where, err)
}
