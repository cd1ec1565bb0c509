package fleet

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/score"
)

// Defaults of a Watcher.
const (
	DefaultEvery         = 5 * time.Minute
	DefaultMaxPerRefresh = 2000
	// DefaultFullEvery: every this many refreshes one rereads every
	// annotation (a file replaced by one of the same size).
	DefaultFullEvery = 12
	// MaxMetricGroups bounds the model label's values per mode on
	// /metrics; the rest are counted in edged_fleet_groups_dropped.
	MaxMetricGroups = 32
)

// Watcher keeps the fleet view of a store for a long-running process
// (`edged sink --listen`): Run refreshes its Index every Every, at
// most MaxPerRefresh annotations read each time, and publishes a
// snapshot that ServeHTTP (JSON, or text with ?format=text) and the
// Prometheus collector read: a scrape never reads the store.
type Watcher struct {
	Every         time.Duration // default DefaultEvery
	MaxPerRefresh int           // default DefaultMaxPerRefresh
	Score         score.Options
	Log           *slog.Logger // default slog.Default()

	mu       sync.Mutex
	snap     Summary
	at       time.Time // of the last refresh that listed the store
	failures uint64
	done     bool // one refresh finished (snap is set)
}

// Run refreshes the view of store b (rooted at the store) now and then
// every Every, until ctx ends.
func (w *Watcher) Run(ctx context.Context, b blob.Blobs) {
	every, max := w.Every, w.MaxPerRefresh
	if every <= 0 {
		every = DefaultEvery
	}
	if max <= 0 {
		max = DefaultMaxPerRefresh
	}
	log := w.Log
	if log == nil {
		log = slog.Default()
	}
	ix := Index{Score: w.Score, MaxPerRefresh: max}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for n := 0; ; n++ {
		err := ix.Refresh(ctx, b, n > 0 && n%DefaultFullEvery == 0)
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		if err != nil {
			w.failures++
			log.Warn("fleet view: the store could not be listed; the view shown is the last one", "err", err)
		} else {
			w.snap, w.at, w.done = ix.Summary(ByModel), time.Now(), true
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Snapshot is the last view computed, when it was, and whether there is
// one yet.
func (w *Watcher) Snapshot() (s Summary, at time.Time, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.snap, w.at, w.done
}

// ServeHTTP serves the last view: JSON ({"refreshed":TIME,"view":
// Summary}), or text with ?format=text; 503 before the first refresh.
func (w *Watcher) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s, at, ok := w.Snapshot()
	if !ok {
		http.Error(rw, "the fleet view is being computed; try again shortly", http.StatusServiceUnavailable)
		return
	}
	if r.URL.Query().Get("format") == "text" {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = rw.Write([]byte("refreshed " + at.UTC().Format(time.RFC3339) + "\n"))
		_ = s.WriteText(rw)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(struct {
		Refreshed time.Time `json:"refreshed"`
		View      Summary   `json:"view"`
	}{at.UTC(), s})
}

// splitKey is the model and prompt version of a ByModel key.
func splitKey(k string) (model, prompt string) {
	i := strings.LastIndexByte(k, '@')
	if i < 0 {
		return k, ""
	}
	return k[:i], k[i+1:]
}
