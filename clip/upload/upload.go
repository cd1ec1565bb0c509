package upload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/loglimit"
)

// Options are an Uploader's dependencies. Zero values take the defaults.
type Options struct {
	Logger *slog.Logger
	// StoreDir is the store's directory (DATA_DIR/episodes), scanned at
	// start for clips not uploaded yet.
	StoreDir string
	// Getenv reads the environment for blob/s3 (default os.Getenv).
	Getenv func(string) string
	// Timeout of one request but a part's (which adds its bytes' time at
	// the capped rate). Default 30s.
	Timeout time.Duration
	// Limiter paces the bytes sent; default a rate.Limiter of
	// clips.upload_rate with a burst of Chunk.
	Limiter Waiter
	// Chunk is the most bytes read (and waited for) at once. Default
	// 64 KiB, at most clips.upload_rate.
	Chunk int
	// MinBackoff and MaxBackoff bound the wait before an upload is
	// retried (doubling from the first). Default 1s and 1m.
	MinBackoff, MaxBackoff time.Duration
	// OnUploaded is called (on the uploader's goroutine) with a clip's
	// episode, name and s3:// URL once its upload is confirmed. Optional.
	OnUploaded func(episodeID, clipName, url string)
}

// Results of an upload, the label of /metrics' uploads count.
const (
	ResultUploaded = "uploaded" // confirmed in the store
	ResultDeleted  = "deleted"  // the clip was deleted before (its upload aborted)
)

// Results are every Result*, for a metric's labels.
var Results = []string{ResultUploaded, ResultDeleted}

// Stats are an Uploader's counts.
type Stats struct {
	Bytes   uint64            // bytes of the parts the store confirmed
	Parts   uint64            // parts the store confirmed
	Uploads map[string]uint64 // by Result*
	Retries uint64            // attempts that failed and were retried
	Queued  int               // clips waiting (or being uploaded)
}

// queued is one clip waiting for its upload.
type queued struct {
	path string // STORE/ID/clips/NAME
	id   string
	name string
}

// key is the clip's name relative to a store's root.
func (c queued) key() string { return episode.ClipKey(c.id, c.name) }

// Uploader uploads clips. See doc.go.
type Uploader struct {
	cfg  policy.Config
	opts Options
	log  *slog.Logger
	t    *s3.Target
	lim  Waiter
	fail loglimit.Limiter

	mu    sync.Mutex
	queue map[string]queued // by path
	stats Stats

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns an uploader of cfg (validated; cfg.Upload set) and starts
// its goroutine. No I/O but the store's scan: the object store is
// reached by the goroutine, which retries while it is down.
func New(cfg policy.Config, opts Options) (*Uploader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Upload == "" {
		return nil, errors.New("upload: clips.upload is empty: nothing to upload to")
	}
	t, err := s3.NewTarget(cfg.Upload, s3.Options{Timeout: opts.Timeout, Getenv: opts.Getenv})
	if err != nil {
		return nil, fmt.Errorf("upload: clips.upload: %w", err)
	}
	opts = withDefaults(cfg, opts)
	u := &Uploader{cfg: cfg, opts: opts, log: opts.Logger, t: t, lim: opts.Limiter, queue: map[string]queued{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	u.stats.Uploads = map[string]uint64{}
	u.scan()
	ctx, cancel := context.WithCancel(context.Background())
	u.cancel = cancel
	go u.loop(ctx)
	return u, nil
}

func withDefaults(cfg policy.Config, o Options) Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Chunk <= 0 {
		o.Chunk = 64 << 10
	}
	o.Chunk = int(min(int64(o.Chunk), cfg.UploadRate))
	if o.Limiter == nil {
		o.Limiter = rate.NewLimiter(rate.Limit(cfg.UploadRate), o.Chunk)
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(time.Minute, o.MinBackoff)
	}
	return o
}

// Add queues the clip written at path (STORE/ID/clips/NAME). It never
// blocks.
func (u *Uploader) Add(path string) {
	c, ok := u.clipAt(path)
	if !ok {
		u.log.Warn("upload: not a clip of the store; not uploaded", "path", path)
		return
	}
	u.mu.Lock()
	u.queue[path] = c
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// clipAt names the clip at path in the store.
func (u *Uploader) clipAt(path string) (queued, bool) {
	dir, name := filepath.Split(path)
	epDir := filepath.Dir(filepath.Clean(dir))
	if !episode.IsClipName(name) || filepath.Base(filepath.Clean(dir)) != episode.ClipsDir ||
		filepath.Clean(filepath.Dir(epDir)) != filepath.Clean(u.opts.StoreDir) {
		return queued{}, false
	}
	return queued{path: path, id: filepath.Base(epDir), name: name}, true
}

// scan queues the store's clips not uploaded yet, and the sidecars of
// clips deleted meanwhile (their uploads are aborted).
func (u *Uploader) scan() {
	clips, _ := filepath.Glob(filepath.Join(u.opts.StoreDir, "*", episode.ClipsDir, episode.ClipPrefix+"*"+episode.ClipExt))
	sidecars, _ := filepath.Glob(filepath.Join(u.opts.StoreDir, "*", episode.ClipsDir, "."+episode.ClipPrefix+"*"+episode.ClipExt+sidecarExt))
	for _, s := range sidecars {
		dir, name := filepath.Split(s)
		clips = append(clips, filepath.Join(dir, strings.TrimSuffix(strings.TrimPrefix(name, "."), sidecarExt)))
	}
	for _, p := range clips {
		if sc, err := loadSidecar(p); err == nil && sc != nil && sc.Done && exists(p) {
			continue // uploaded and kept (clips.keep_uploaded)
		}
		if c, ok := u.clipAt(p); ok {
			u.mu.Lock()
			u.queue[p] = c
			u.mu.Unlock()
		}
	}
}

// Stats returns the uploader's counts.
func (u *Uploader) Stats() Stats {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.stats
	s.Uploads = maps.Clone(s.Uploads)
	s.Queued = len(u.queue)
	return s
}

func (u *Uploader) count(f func(*Stats)) {
	u.mu.Lock()
	f(&u.stats)
	u.mu.Unlock()
}

// Close stops the uploader and waits for it; an upload in flight
// resumes from its sidecar at the next start.
func (u *Uploader) Close() {
	u.cancel()
	<-u.done
}

// next is the oldest queued clip (names sort by trigger time).
func (u *Uploader) next() (queued, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.queue) == 0 {
		return queued{}, false
	}
	all := slices.Collect(maps.Values(u.queue))
	return slices.MinFunc(all, func(a, b queued) int {
		return strings.Compare(a.name+"\x00"+a.path, b.name+"\x00"+b.path)
	}), true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
