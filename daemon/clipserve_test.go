package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/httpserve"
)

var clipT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// clipStore is a data_dir of robot arm-01 with two episodes' clips
// (random bytes), a temporary file and a stray file; it returns the
// clips' contents by name and the episodes' ids.
func clipStore(t *testing.T, dataDir string) (map[string][]byte, [2]string) {
	t.Helper()
	ids := [2]string{episode.NewID("arm-01", clipT0, ""), episode.NewID("arm-01", clipT0.Add(time.Minute), "")}
	files := map[string][]byte{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, id := range ids {
		dir := episode.ClipDir(filepath.Join(dataDir, episode.EpisodesDir, id))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := episode.ClipName(clipT0.Add(time.Duration(i)*time.Minute+5*time.Second), "state")
		b := make([]byte, 300_000+i)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		files[name] = b
		for n, body := range map[string][]byte{name: b, "." + name + ".tmp1": {1}, "notes.txt": {2}} {
			if err := os.WriteFile(filepath.Join(dir, n), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return files, ids
}

// serveDaemon serves d's handler, wrapped by wrap, on a loopback port
// with the daemon's timeouts; it returns the base URL.
func serveDaemon(t *testing.T, dataDir string, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	cfg, err := config.Parse([]byte("robot_id: arm-01\ndata_dir: " + dataDir + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{cfg: *cfg, buildTime: newSheetBuildHistogram()}
	h := d.handler()
	if wrap != nil {
		h = wrap(h)
	}
	addr, stop, err := httpserve.Start("127.0.0.1:0", "http.listen", h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return "http://" + addr.String()
}

// TestClipEndpoints: GET /clips lists the store's clips (and nothing
// else found there); GET /clips/EPISODE/NAME serves one, with Range;
// names that are not a clip of this robot's episodes are refused.
func TestClipEndpoints(t *testing.T) {
	dataDir := t.TempDir()
	files, ids := clipStore(t, dataDir)
	base := serveDaemon(t, dataDir, nil)

	resp, err := http.Get(base + "/clips")
	if err != nil {
		t.Fatal(err)
	}
	var list []StoredClip
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 2 {
		t.Fatalf("GET /clips: %+v, %v", list, err)
	}
	for i, c := range list {
		at, _, _ := episode.ParseClipName(c.Name)
		if c.Episode != ids[i] || c.Bytes != int64(len(files[c.Name])) || c.Kind != "state" || !c.At.Equal(at) || c.Where != episode.ClipOnRobot {
			t.Errorf("clip %d: %+v", i, c)
		}
	}
	c := list[1]
	req, _ := http.NewRequest(http.MethodGet, base+"/clips/"+c.Episode+"/"+c.Name, nil)
	req.Header.Set("Range", "bytes=1000-")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, files[c.Name][1000:]) {
		t.Errorf("Range request: %s, %d bytes", resp.Status, len(body))
	}

	other := episode.NewID("arm-02", clipT0, "")
	for _, path := range []string{
		"/clips/" + ids[0] + "/" + episode.ManifestFile,
		"/clips/" + ids[0] + "/..%2F" + episode.ManifestFile,
		"/clips/" + ids[0] + "/clip-20260301T100005.000Z-..%2F..%2Fx.mcap",
		"/clips/..%2F" + ids[0] + "/" + list[0].Name,
		"/clips/" + other + "/" + list[0].Name,
		"/clips/" + ids[0] + "/.." + "/" + list[0].Name,
		"/clips/" + ids[0] + "/." + list[0].Name + ".tmp1",
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent {
			t.Errorf("GET %s: %s (%d bytes), want refused", path, resp.Status, len(body))
		}
	}
}

// cutAfter aborts the first cuts clip downloads after n bytes of their
// body (the connection closes midway) and records the Range headers
// asked for.
type cutAfter struct {
	n, cuts int
	mu      sync.Mutex
	ranges  []string
	sent    int
}

func (c *cutAfter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/clips/") {
			h.ServeHTTP(w, r)
			return
		}
		c.mu.Lock()
		c.ranges = append(c.ranges, r.Header.Get("Range"))
		cut := c.cuts > 0
		c.cuts--
		c.mu.Unlock()
		lw := &limitWriter{ResponseWriter: w, left: c.n, cut: cut, count: func(n int) { c.mu.Lock(); c.sent += n; c.mu.Unlock() }}
		h.ServeHTTP(lw, r)
	})
}

type limitWriter struct {
	http.ResponseWriter
	left  int
	cut   bool
	count func(int)
}

func (w *limitWriter) Write(b []byte) (int, error) {
	if w.cut && len(b) >= w.left {
		n, _ := w.ResponseWriter.Write(b[:w.left])
		w.count(n)
		w.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection closes midway
	}
	w.left -= len(b)
	w.count(len(b))
	return w.ResponseWriter.Write(b)
}

// TestClipFetchResumes: a fetch cut midway stops with the part kept; run
// again it resumes with Range requests through more cuts, and ends
// byte-identical, having sent the clip about once; a wrong checksum is
// refused and its part removed; a fetched clip is not fetched again.
func TestClipFetchResumes(t *testing.T) {
	dataDir := t.TempDir()
	files, ids := clipStore(t, dataDir)
	cut := &cutAfter{n: 100_000, cuts: 3}
	base := serveDaemon(t, dataDir, cut.wrap)
	name := episode.ClipName(clipT0.Add(time.Minute+5*time.Second), "state")
	out := t.TempDir()
	ctx := context.Background()

	f := Fetch{From: base, Latest: true, Dir: out, Attempts: 1}
	if _, err := FetchClips(ctx, f); err == nil {
		t.Fatal("a fetch cut midway succeeded")
	}
	if st, err := os.Stat(filepath.Join(out, name+".part")); err != nil || st.Size() != 100_000 {
		t.Fatalf("part after the cut: %v, %v", st, err)
	}
	f.Attempts = 5
	got, err := FetchClips(ctx, f)
	if err != nil || len(got) != 1 || got[0].Episode != ids[1] {
		t.Fatalf("fetch: %+v, %v", got, err)
	}
	b, err := os.ReadFile(filepath.Join(out, name))
	if err != nil || !bytes.Equal(b, files[name]) {
		t.Fatalf("fetched clip differs (%d bytes, want %d): %v", len(b), len(files[name]), err)
	}
	if _, err := os.Stat(filepath.Join(out, name+".part")); !os.IsNotExist(err) {
		t.Errorf("part left: %v", err)
	}
	want := []string{"", "bytes=100000-", "bytes=200000-", "bytes=300000-"}
	if fmt.Sprint(cut.ranges) != fmt.Sprint(want) || cut.sent != len(files[name]) {
		t.Errorf("requests %q, %d bytes sent; want %q, %d", cut.ranges, cut.sent, want, len(files[name]))
	}

	n := len(cut.ranges)
	if _, err := FetchClips(ctx, f); err != nil || len(cut.ranges) != n {
		t.Errorf("a fetched clip fetched again: %v, %q", err, cut.ranges[n:])
	}
	other := episode.ClipName(clipT0.Add(5*time.Second), "state")
	bad := Fetch{From: base, Names: []string{other}, Dir: out, SHA256: map[string]string{other: strings.Repeat("0", 64)}}
	if _, err := FetchClips(ctx, bad); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a wrong sha256: %v", err)
	}
	bad.SHA256[other] = fmt.Sprintf("%x", sha256.Sum256(files[other]))
	if _, err := FetchClips(ctx, bad); err != nil {
		t.Errorf("the right sha256: %v", err)
	}
}

// TestClipFetchRefusesTraversal: a daemon (or anything on its port)
// listing names that are not clips gets nothing written, least of all
// outside the output directory.
func TestClipFetchRefusesTraversal(t *testing.T) {
	for _, entry := range []StoredClip{
		{Episode: episode.NewID("arm-01", clipT0, ""), Name: "../../evil.mcap", Bytes: 3},
		{Episode: episode.NewID("arm-01", clipT0, ""), Name: "clip-20260301T100005.000Z-..%2Fx.mcap", Bytes: 3},
		{Episode: "../..", Name: episode.ClipName(clipT0, "state"), Bytes: 3},
	} {
		srv := http.NewServeMux()
		srv.HandleFunc("GET /clips", func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode([]StoredClip{entry}) })
		srv.HandleFunc("GET /clips/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("bad")) })
		addr, stop, err := httpserve.Start("127.0.0.1:0", "test", srv, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		out := filepath.Join(root, "a", "b")
		_, err = FetchClips(context.Background(), Fetch{From: addr.String(), All: true, Dir: out})
		stop()
		if err == nil {
			t.Errorf("%+v fetched", entry)
		}
		var written []string
		_ = filepath.Walk(root, func(p string, info os.FileInfo, _ error) error {
			if info != nil && !info.IsDir() {
				written = append(written, p)
			}
			return nil
		})
		if len(written) != 0 {
			t.Errorf("%+v: wrote %v", entry, written)
		}
	}
}
