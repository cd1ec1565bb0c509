package s3

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/edged-robotics/edged/blob"
)

// Options of Open. Zero values take the defaults.
type Options struct {
	// Timeout of one request. Default 30s.
	Timeout time.Duration
	// Getenv reads the environment. Default os.Getenv.
	Getenv func(string) string
}

// Store is blob.Blobs on one bucket and prefix.
type Store struct {
	c       *minio.Client
	bucket  string
	prefix  string // "" or "PREFIX/"
	timeout time.Duration
	url     string
	// Conditional reports whether the store refused a conditional write
	// it had to refuse when Open probed it.
	Conditional bool
	// ETagMD5 reports whether the store's ETag of an object put in one
	// part is the MD5 of its body (AWS S3 without KMS, MinIO, versitygw),
	// as Open's probe found: Get then checks that the body it read is the
	// one its ETag names.
	ETagMD5 bool
}

// Rereads of an object whose body does not match its ETag (10, 20, 40,
// 80, 160 ms: 310 ms in all).
const (
	mismatchRereads = 5
	mismatchBackoff = 10 * time.Millisecond
)

// IsURL reports whether s names an object store (s3://...).
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// Open connects to s3://BUCKET[/PREFIX], checks that the bucket exists
// and probes conditional writes.
func Open(ctx context.Context, raw string, o Options) (*Store, error) {
	t, err := NewTarget(raw, o)
	if err != nil {
		return nil, err
	}
	s := &Store{c: t.Core.Client, bucket: t.Bucket, prefix: t.Prefix, timeout: t.Timeout, url: t.URL}
	cctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	ok, err := t.Core.BucketExists(cctx, s.bucket)
	if err != nil {
		return nil, fmt.Errorf("s3: %s at %s: %w (check AWS_ENDPOINT_URL and the credentials)", s.bucket, t.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("s3: bucket %s does not exist at %s: create it first", s.bucket, t.Endpoint)
	}
	s.Conditional, s.ETagMD5 = s.probe()
	return s, nil
}

// probe writes a probe object twice with If-None-Match: *; a store that
// takes the second write ignores conditions. The first write's ETag says
// whether ETags are the MD5 of the body.
func (s *Store) probe() (conditional, etagMD5 bool) {
	name := ".edged-probe"
	_ = s.Delete(name)
	defer func() { _ = s.Delete(name) }()
	body := []byte("1")
	etag, err := s.Put(name, body, blob.Cond{IfAbsent: true})
	if err != nil {
		return false, false
	}
	_, err = s.Put(name, []byte("2"), blob.Cond{IfAbsent: true})
	return errors.Is(err, blob.ErrPrecondition), bodyIs(body, etag)
}

// bodyIs reports whether etag is the MD5 of b (a one-part ETag).
func bodyIs(b []byte, etag string) bool {
	sum := md5.Sum(b)
	return strings.EqualFold(strings.Trim(etag, `"`), hex.EncodeToString(sum[:]))
}

func (s *Store) String() string { return s.url }

func (s *Store) key(name string) (string, error) {
	if err := blob.CheckName(name); err != nil {
		return "", err
	}
	return s.prefix + name, nil
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// Get implements blob.Blobs. On a store whose ETags are MD5s, the
// version returned is the ETag of the very body returned: a store may
// pair a body with the ETag of another write of the same object while
// writes race (versitygw 1.8 does), and a conditional write on that ETag
// would then replace a body the writer never read (a sink sharing the
// store lost another's segment record so). Such a read is read again;
// a mismatch that persists is an error worth a retry.
func (s *Store) Get(name string, max int64) ([]byte, string, error) {
	return consistentGet(func() ([]byte, string, error) { return s.get(name, max) }, s.ETagMD5,
		func(etag string) error {
			return fmt.Errorf("s3: %s/%s: the body read is not the one its ETag %s names (written meanwhile); it is retried", s.url, name, etag)
		})
}

// consistentGet calls get until the body it returns matches its ETag
// (check false: at once), at most mismatchRereads times more.
func consistentGet(get func() ([]byte, string, error), check bool, mismatch func(etag string) error) ([]byte, string, error) {
	for attempt := 0; ; attempt++ {
		b, etag, err := get()
		// A multipart ETag ("MD5-PARTS") is no body's MD5: not checked.
		if err != nil || !check || strings.Contains(etag, "-") || bodyIs(b, etag) {
			return b, etag, err
		}
		if attempt == mismatchRereads {
			return nil, "", mismatch(etag)
		}
		time.Sleep(mismatchBackoff << attempt)
	}
}

func (s *Store) get(name string, max int64) ([]byte, string, error) {
	k, err := s.key(name)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	obj, err := s.c.GetObject(ctx, s.bucket, k, minio.GetObjectOptions{})
	if err != nil {
		return nil, "", s.wrap(name, err)
	}
	defer obj.Close()
	st, err := obj.Stat()
	if err != nil {
		return nil, "", s.wrap(name, err)
	}
	if st.Size > max {
		return nil, "", fmt.Errorf("%w: %s has %d bytes, at most %d read", blob.ErrTooLarge, name, st.Size, max)
	}
	b, err := io.ReadAll(io.LimitReader(obj, max+1))
	if err != nil {
		return nil, "", s.wrap(name, err)
	}
	if int64(len(b)) > max {
		return nil, "", fmt.Errorf("%w: %s grew past %d bytes while read", blob.ErrTooLarge, name, max)
	}
	return b, st.ETag, nil
}

// Put implements blob.Blobs.
func (s *Store) Put(name string, b []byte, cond blob.Cond) (string, error) {
	k, err := s.key(name)
	if err != nil {
		return "", err
	}
	opts := minio.PutObjectOptions{DisableMultipart: true, SendContentMd5: true}
	switch {
	case cond.IfAbsent:
		opts.SetMatchETagExcept("*")
	case cond.IfVersion != "":
		opts.SetMatchETag(cond.IfVersion)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	info, err := s.c.PutObject(ctx, s.bucket, k, bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return "", s.wrap(name, err)
	}
	return info.ETag, nil
}

// List implements blob.Blobs.
func (s *Store) List(prefix string) ([]blob.Info, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*s.timeout)
	defer cancel()
	var out []blob.Info
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, s.wrap(prefix, o.Err)
		}
		name := strings.TrimPrefix(o.Key, s.prefix)
		if strings.HasSuffix(name, "/") {
			continue
		}
		out = append(out, blob.Info{Name: name, Size: o.Size})
	}
	return out, nil
}

// Delete implements blob.Blobs.
func (s *Store) Delete(name string) error {
	k, err := s.key(name)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.RemoveObject(ctx, s.bucket, k, minio.RemoveObjectOptions{}); err != nil {
		if err := s.wrap(name, err); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// wrap maps the store's answers onto fs.ErrNotExist and
// blob.ErrPrecondition, and says where.
func (s *Store) wrap(name string, err error) error {
	r := minio.ToErrorResponse(err)
	switch {
	case r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound && r.Code != "NoSuchBucket":
		return fmt.Errorf("s3: %s/%s: %w", s.url, name, fs.ErrNotExist)
	case r.StatusCode == http.StatusPreconditionFailed || r.Code == "PreconditionFailed" || r.Code == "ConditionalRequestConflict":
		return fmt.Errorf("s3: %s/%s: %w", s.url, name, blob.ErrPrecondition)
	}
	return fmt.Errorf("s3: %s/%s: %w (the store or the network failed; it is retried)", s.url, name, err)
}
