package upload

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// errGone: the clip was deleted (the budget, the store's retention)
// before its upload was confirmed; its multipart upload is aborted.
var errGone = errors.New("upload: the clip was deleted before its upload was confirmed")

// upload uploads the clip at path (a clip of the store: DIR/ID/clips/NAME)
// from where its sidecar says, confirms it and deletes it (or records
// it done). It returns errGone for a clip deleted meanwhile.
func (u *Uploader) upload(ctx context.Context, c queued) error {
	st, err := os.Stat(c.path)
	sc, lerr := loadSidecar(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		u.abandon(ctx, c, sc)
		return errGone
	}
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	if lerr != nil {
		u.log.Warn("upload: the upload's state is unreadable; the clip is uploaded anew", "clip", c.path, "err", lerr)
	}
	if sc != nil && sc.Done {
		return nil
	}
	key := u.t.Key(c.key())
	if sc == nil || sc.Key != key || sc.Size != st.Size() || sc.PartSize != u.cfg.UploadPart {
		if sc, err = u.begin(ctx, c, key, st.Size()); err != nil {
			return err
		}
	} else if err := u.reconcile(ctx, c, sc); err != nil {
		return err
	}
	if err := u.sendParts(ctx, c, sc); err != nil {
		return err
	}
	return u.complete(ctx, c, sc)
}

// begin starts a new multipart upload of c and records it.
func (u *Uploader) begin(ctx context.Context, c queued, key string, size int64) (*sidecar, error) {
	rctx, cancel := context.WithTimeout(ctx, u.t.Timeout)
	defer cancel()
	id, err := u.t.Core.NewMultipartUpload(rctx, u.t.Bucket, key, minio.PutObjectOptions{ContentType: clipContentType})
	if err != nil {
		return nil, fmt.Errorf("upload: starting %s: %w", u.t.ObjectURL(c.key()), err)
	}
	sc := &sidecar{Key: key, UploadID: id, Size: size, PartSize: u.cfg.UploadPart}
	return sc, sc.save(c.path)
}

// clipContentType is an MCAP file's media type (mcap.dev).
const clipContentType = "application/x-mcap"

// reconcile keeps those of the sidecar's parts the store lists with the
// same ETag and size; an upload the store no longer knows starts anew.
func (u *Uploader) reconcile(ctx context.Context, c queued, sc *sidecar) error {
	listed := map[int]minio.ObjectPart{}
	marker := 0
	for {
		rctx, cancel := context.WithTimeout(ctx, u.t.Timeout)
		res, err := u.t.Core.ListObjectParts(rctx, u.t.Bucket, sc.Key, sc.UploadID, marker, 1000)
		cancel()
		if minio.ToErrorResponse(err).Code == "NoSuchUpload" {
			if sc.confirmed() == sc.Size && u.confirm(ctx, c, sc) == nil {
				return nil // completed before edged stopped
			}
			u.log.Info("upload: the store forgot the upload; the clip is uploaded anew", "clip", c.path)
			fresh, err := u.begin(ctx, c, sc.Key, sc.Size)
			if err == nil {
				*sc = *fresh
			}
			return err
		}
		if err != nil {
			return fmt.Errorf("upload: listing the parts of %s: %w", u.t.ObjectURL(c.key()), err)
		}
		for _, p := range res.ObjectParts {
			listed[p.PartNumber] = p
		}
		if !res.IsTruncated || res.NextPartNumberMarker <= marker {
			break
		}
		marker = res.NextPartNumberMarker
	}
	kept := sc.Parts[:0]
	for _, p := range sc.Parts {
		if l, ok := listed[p.N]; !ok || l.Size != p.Size || !sameETag(l.ETag, p.ETag) || p.N != len(kept)+1 {
			break // parts are sent in order: the rest is sent again
		}
		kept = append(kept, p)
	}
	sc.Parts = kept
	return nil
}

// sendParts sends the parts after the confirmed ones, recording each.
func (u *Uploader) sendParts(ctx context.Context, c queued, sc *sidecar) error {
	f, err := os.Open(c.path)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	defer f.Close()
	for off := sc.confirmed(); off < sc.Size; off = sc.confirmed() {
		if _, err := os.Stat(c.path); errors.Is(err, fs.ErrNotExist) { // the open file outlives a delete
			u.abandon(ctx, c, sc)
			return errGone
		}
		n := len(sc.Parts) + 1
		size := min(sc.PartSize, sc.Size-off)
		h := md5.New()
		r := &pacedReader{ctx: ctx, r: io.NewSectionReader(f, off, size), left: size, lim: u.lim, chunk: u.opts.Chunk, hash: h}
		rctx, cancel := context.WithTimeout(ctx, u.partTimeout(size))
		p, err := u.t.Core.PutObjectPart(rctx, u.t.Bucket, sc.Key, sc.UploadID, n, r, size, minio.PutObjectPartOptions{})
		cancel()
		if err != nil {
			return fmt.Errorf("upload: part %d of %s: %w", n, u.t.ObjectURL(c.key()), err)
		}
		if sum := hex.EncodeToString(h.Sum(nil)); !sameETag(p.ETag, sum) && !strings.Contains(p.ETag, "-") && u.etagMD5(p.ETag) {
			return fmt.Errorf("upload: part %d of %s: the store's ETag %s is not the MD5 of the bytes sent (%s): sent again", n, u.t.ObjectURL(c.key()), p.ETag, sum)
		}
		sc.Parts = append(sc.Parts, part{N: n, ETag: strings.Trim(p.ETag, `"`), Size: size})
		if err := sc.save(c.path); err != nil {
			return err
		}
		u.count(func(s *Stats) { s.Bytes += uint64(size); s.Parts++ })
	}
	return nil
}

// etagMD5: a part's ETag of 32 hex digits is its body's MD5 (AWS without
// KMS, MinIO, versitygw); other ETags are not checked.
func (u *Uploader) etagMD5(etag string) bool {
	e := strings.Trim(etag, `"`)
	_, err := hex.DecodeString(e)
	return len(e) == 32 && err == nil
}

// partTimeout bounds one part's request: its bytes at the capped rate,
// twice, plus a request's timeout.
func (u *Uploader) partTimeout(size int64) time.Duration {
	return u.t.Timeout + 2*time.Duration(float64(size)/float64(u.cfg.UploadRate)*float64(time.Second))
}

func sameETag(a, b string) bool { return strings.EqualFold(strings.Trim(a, `"`), strings.Trim(b, `"`)) }

// complete completes the multipart upload, confirms the object and
// deletes the clip (or records it done).
func (u *Uploader) complete(ctx context.Context, c queued, sc *sidecar) error {
	parts := make([]minio.CompletePart, len(sc.Parts))
	for i, p := range sc.Parts {
		parts[i] = minio.CompletePart{PartNumber: p.N, ETag: p.ETag}
	}
	rctx, cancel := context.WithTimeout(ctx, u.t.Timeout)
	_, err := u.t.Core.CompleteMultipartUpload(rctx, u.t.Bucket, sc.Key, sc.UploadID, parts, minio.PutObjectOptions{})
	cancel()
	if err != nil && minio.ToErrorResponse(err).Code != "NoSuchUpload" { // completed before a crash: the confirmation says
		return fmt.Errorf("upload: completing %s: %w", u.t.ObjectURL(c.key()), err)
	}
	if err := u.confirm(ctx, c, sc); err != nil {
		return err
	}
	if u.cfg.KeepUploaded {
		sc.Done = true
		return sc.save(c.path)
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("upload: deleting the uploaded clip: %w", err)
	}
	return removeSidecar(c.path)
}

// confirm checks the stored object: the clip's size, and the multipart
// ETag of the confirmed parts (the MD5 of their MD5s, "-N").
func (u *Uploader) confirm(ctx context.Context, c queued, sc *sidecar) error {
	rctx, cancel := context.WithTimeout(ctx, u.t.Timeout)
	defer cancel()
	info, err := u.t.Core.StatObject(rctx, u.t.Bucket, sc.Key, minio.StatObjectOptions{})
	if err != nil {
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			sc.UploadID = "" // completed nowhere: the next attempt starts anew
			sc.Parts = nil
			_ = sc.save(c.path)
		}
		return fmt.Errorf("upload: confirming %s: %w", u.t.ObjectURL(c.key()), err)
	}
	want := multipartETag(sc.Parts)
	if info.Size != sc.Size || (want != "" && !sameETag(info.ETag, want)) {
		return fmt.Errorf("upload: %s holds %d bytes (ETag %s), not the clip's %d (ETag %s): uploaded again",
			u.t.ObjectURL(c.key()), info.Size, info.ETag, sc.Size, want)
	}
	return nil
}

// multipartETag is the ETag S3 gives an object of parts: the MD5 of the
// parts' binary MD5s, "-" and their count ("" when a part's ETag is no
// MD5: only the size is confirmed).
func multipartETag(parts []part) string {
	h := md5.New()
	for _, p := range parts {
		b, err := hex.DecodeString(p.ETag)
		if err != nil || len(b) != md5.Size {
			return ""
		}
		h.Write(b)
	}
	return fmt.Sprintf("%s-%d", hex.EncodeToString(h.Sum(nil)), len(parts))
}

// abandon aborts c's multipart upload, if any, and deletes its sidecar:
// the clip is gone.
func (u *Uploader) abandon(ctx context.Context, c queued, sc *sidecar) {
	if sc != nil && sc.UploadID != "" && !sc.Done {
		rctx, cancel := context.WithTimeout(ctx, u.t.Timeout)
		err := u.t.Core.AbortMultipartUpload(rctx, u.t.Bucket, sc.Key, sc.UploadID)
		cancel()
		if err != nil && minio.ToErrorResponse(err).Code != "NoSuchUpload" {
			u.log.Warn("upload: could not abort the upload of a deleted clip (the store's lifecycle rules clean it)", "clip", c.path, "err", err)
		}
	}
	_ = removeSidecar(c.path)
}
