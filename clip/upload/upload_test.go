package upload

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/internal/s3test"
)

// TestResumeAfterStoreDown: the store dies while the second part of a
// three-part clip is sent; the uploader retries (counted), keeps the
// clip, and once the store is back on the same data resumes after the
// confirmed part (its bytes are not sent again), confirms the object
// and only then deletes the clip (kept with keep_uploaded).
func TestResumeAfterStoreDown(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "delete", true: "keep_uploaded"}[keep], func(t *testing.T) {
			srv := s3test.Start(t)
			size := 2*testPart + 1<<20
			storeDir, path, body := writeClip(t, size)
			var once sync.Once
			lim := &countingLimiter{hook: func(_ context.Context, total int64) error {
				if total > testPart { // the first part is confirmed, the second on its way
					once.Do(srv.Stop)
				}
				return nil
			}}
			a := &announced{}
			u := startUploader(t, testConfig(srv, keep), srv, storeDir, lim, a)
			poll.Until(t, 60*time.Second, "retries while the store is down", func() bool { return u.Stats().Retries >= 2 })
			sc, err := loadSidecar(path)
			if err != nil || sc == nil || len(sc.Parts) != 1 || sc.UploadID == "" {
				t.Fatalf("sidecar %+v (%v), want the upload with its one confirmed part", sc, err)
			}
			if !exists(path) {
				t.Fatal("the clip was deleted before its upload was confirmed")
			}
			before, _ := lim.waited()
			srv.Restart(t)
			waitUploads(t, u, ResultUploaded, 1)
			after, maxChunk := lim.waited()
			if sent := after - before; sent != int64(size-testPart) {
				t.Fatalf("%d bytes sent after the store came back, want %d: the confirmed part was sent again", sent, size-testPart)
			}
			if maxChunk > testChunk {
				t.Fatalf("waited for %d bytes at once, more than the chunk %d", maxChunk, testChunk)
			}
			if st := u.Stats(); st.Parts != 3 || st.Bytes != uint64(size) || st.Queued != 0 {
				t.Fatalf("stats %+v, want 3 parts, %d bytes, nothing queued", st, size)
			}
			checkObject(t, srv, body)
			if exists(path) != keep {
				t.Fatalf("the clip exists: %v, want %v (keep_uploaded %v)", exists(path), keep, keep)
			}
			if got := a.list(); !slices.Equal(got, []string{wantURL(srv)}) {
				t.Fatalf("OnUploaded got %q, want %q", got, wantURL(srv))
			}
		})
	}
}

// TestResumeAfterUploaderRestart: edged stops while a part is sent; the
// next uploader resumes from the sidecar after the confirmed part; with
// keep_uploaded a third one does not upload the clip again.
func TestResumeAfterUploaderRestart(t *testing.T) {
	srv := s3test.Start(t)
	size := 2*testPart + 4096
	storeDir, path, body := writeClip(t, size)
	reached := make(chan struct{})
	var once sync.Once
	first := &countingLimiter{hook: func(ctx context.Context, total int64) error {
		if total > testPart {
			once.Do(func() { close(reached) })
			<-ctx.Done() // edged stopping mid-part
			return ctx.Err()
		}
		return nil
	}}
	u := startUploader(t, testConfig(srv, true), srv, storeDir, first, &announced{})
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		t.Fatal("the first part was never confirmed")
	}
	u.Close()
	if sc, err := loadSidecar(path); err != nil || sc == nil || len(sc.Parts) != 1 {
		t.Fatalf("sidecar %+v (%v), want one confirmed part", sc, err)
	}
	second := &countingLimiter{}
	u2 := startUploader(t, testConfig(srv, true), srv, storeDir, second, &announced{})
	waitUploads(t, u2, ResultUploaded, 1)
	if sent, _ := second.waited(); sent != int64(size-testPart) {
		t.Fatalf("the restarted uploader sent %d bytes, want %d (the parts not confirmed)", sent, size-testPart)
	}
	checkObject(t, srv, body)
	u2.Close()
	third := &countingLimiter{}
	u3 := startUploader(t, testConfig(srv, true), srv, storeDir, third, &announced{})
	if st := u3.Stats(); st.Queued != 0 {
		t.Fatalf("an uploaded, kept clip was queued again: %+v", st)
	}
}

// TestDeletedWhileUploading: a clip the store's retention deletes while
// it is uploaded aborts its multipart upload; no object, no sidecar.
func TestDeletedWhileUploading(t *testing.T) {
	srv := s3test.Start(t)
	storeDir, path, _ := writeClip(t, 2*testPart+1)
	var once sync.Once
	lim := &countingLimiter{hook: func(_ context.Context, total int64) error {
		if total > testPart {
			once.Do(func() { _ = os.Remove(path) })
		}
		return nil
	}}
	u := startUploader(t, testConfig(srv, false), srv, storeDir, lim, &announced{})
	waitUploads(t, u, ResultDeleted, 1)
	if exists(sidecarPath(path)) {
		t.Fatal("the deleted clip's sidecar is left")
	}
	res, err := u.t.Core.ListMultipartUploads(context.Background(), u.t.Bucket, u.t.Prefix, "", "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Uploads) != 0 {
		t.Fatalf("multipart uploads left: %+v", res.Uploads)
	}
	if _, err := u.t.Core.StatObject(context.Background(), u.t.Bucket, u.t.Key(testKey()), statOpts()); err == nil {
		t.Fatal("a deleted clip's object was completed")
	}
}

// TestDefaultLimiter: without an injected limiter the uploader paces
// with clips.upload_rate and waits for at most a chunk at once.
func TestDefaultLimiter(t *testing.T) {
	for _, tc := range []struct {
		rate      int64
		wantBurst int
	}{
		{1 << 20, 64 << 10},
		{64 << 10, 64 << 10},
		{10 << 20, 64 << 10},
	} {
		c := testConfigURL("s3://fleet/clips")
		c.UploadRate = tc.rate
		u, err := New(c, Options{StoreDir: t.TempDir(), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		l, ok := u.lim.(*rate.Limiter)
		u.Close()
		if !ok || l.Limit() != rate.Limit(tc.rate) || l.Burst() != tc.wantBurst || u.opts.Chunk != tc.wantBurst {
			t.Fatalf("rate %d: limiter %T %+v, chunk %d; want %d/s with a burst of %d", tc.rate, u.lim, l, u.opts.Chunk, tc.rate, tc.wantBurst)
		}
	}
}
