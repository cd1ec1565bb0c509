package upload

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/internal/s3test"
)

const (
	testEpisode = "arm-01-20260101T120000.000Z"
	testPart    = policy.MinUploadPart
	testChunk   = 32 << 10
)

// testClipName is a clip's name as the clip stage writes it.
var testClipName = episode.ClipName(time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC), "outcome")

// writeClip writes a clip of size random bytes into a new store and
// returns the store's directory and the clip's path and bytes.
func writeClip(t *testing.T, size int) (storeDir, path string, body []byte) {
	t.Helper()
	storeDir = t.TempDir()
	dir := episode.ClipDir(filepath.Join(storeDir, testEpisode))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body = make([]byte, size)
	_, _ = rand.Read(body)
	path = filepath.Join(dir, testClipName)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return storeDir, path, body
}

// countingLimiter records what the uploader waited for; hook (optional)
// runs before each wait with the bytes waited for so far.
type countingLimiter struct {
	mu       sync.Mutex
	total    int64
	maxChunk int
	hook     func(ctx context.Context, total int64) error
}

func (l *countingLimiter) WaitN(ctx context.Context, n int) error {
	l.mu.Lock()
	total, hook := l.total, l.hook
	l.mu.Unlock()
	if hook != nil {
		if err := hook(ctx, total); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += int64(n)
	l.maxChunk = max(l.maxChunk, n)
	return nil
}

func (l *countingLimiter) waited() (int64, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total, l.maxChunk
}

func testConfig(srv *s3test.Server, keep bool) policy.Config {
	c := policy.Default()
	c.Upload, c.UploadPart, c.KeepUploaded = srv.URL("fleet"), testPart, keep
	return c
}

// announced records OnUploaded's calls.
type announced struct {
	mu   sync.Mutex
	urls []string
}

func (a *announced) add(id, name, url string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.urls = append(a.urls, id+" "+name+" "+url)
}

func (a *announced) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.urls...)
}

func startUploader(t *testing.T, cfg policy.Config, srv *s3test.Server, storeDir string, lim Waiter, a *announced) *Uploader {
	t.Helper()
	u, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), StoreDir: storeDir, Getenv: srv.Getenv,
		Timeout: 10 * time.Second, Limiter: lim, Chunk: testChunk, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		OnUploaded: a.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.Close)
	return u
}

func waitUploads(t *testing.T, u *Uploader, result string, n uint64) {
	t.Helper()
	poll.Until(t, 60*time.Second, "the clip's upload ("+result+")", func() bool { return u.Stats().Uploads[result] >= n })
}

// checkObject fails unless the store holds body at the clip's key, and
// a sink's reader lists the clip with its episode.
func checkObject(t *testing.T, srv *s3test.Server, body []byte) {
	t.Helper()
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := st.Get(episode.ClipKey(testEpisode, testClipName), int64(len(body))+1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, body) {
		t.Fatalf("the object has %d bytes, not the clip's %d (or other bytes)", len(got), len(body))
	}
	m, err := episode.EncodeManifest(episode.Manifest{Format: episode.ManifestFormat, ID: testEpisode, Robot: "arm-01", Start: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(path.Join(episode.EpisodesDir, testEpisode, episode.ManifestFile), m, blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	e, err := episode.LoadBlobs(blob.Sub(st, episode.EpisodesDir), testEpisode)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Clips) != 1 || e.Clips[0].Name != testClipName || e.Clips[0].Bytes != int64(len(body)) {
		t.Fatalf("the sink's reader lists clips %+v, want %s of %d bytes", e.Clips, testClipName, len(body))
	}
}

func wantURL(srv *s3test.Server) string {
	return testEpisode + " " + testClipName + " " + srv.URL("fleet") + "/" + episode.ClipKey(testEpisode, testClipName)
}

func testKey() string { return episode.ClipKey(testEpisode, testClipName) }

func statOpts() minio.StatObjectOptions { return minio.StatObjectOptions{} }

func testConfigURL(url string) policy.Config {
	c := policy.Default()
	c.Upload = url
	return c
}
