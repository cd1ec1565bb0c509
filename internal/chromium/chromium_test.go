package chromium

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
)

const page = `<!doctype html><html><head><title>t</title></head><body>
<div id="sync">static</div><div id="later"></div><div id="fetched"></div>
<script>
document.body.dataset.ran = "yes";
setTimeout(function () { document.getElementById("later").textContent = "timer-fired"; }, 500);
fetch("/data").then(function (r) { return r.text(); }).then(function (t) {
  document.getElementById("fetched").textContent = t;
});
</script></body></html>`

func server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "from-fetch") })
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestDumpDOMRunsScripts(t *testing.T) {
	Require(t)
	s := server(t)
	dom := LoadDOM(t, s.URL+"/", Options{VirtualTime: 3 * time.Second})
	for _, want := range []string{`data-ran="yes"`, "static", "timer-fired", "from-fetch"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
}

func TestScreenshotWritesPNG(t *testing.T) {
	Require(t)
	s := server(t)
	png := filepath.Join(t.TempDir(), "shot.png")
	TakeScreenshot(t, s.URL+"/", png, Options{Width: 400, Height: 300})
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s is not a PNG (%d bytes)", png, len(b))
	}
}

// A page that never finishes loading must not hold the call past its
// context, and no Chromium process of the run may survive it.
func TestDeadlineKillsProcessGroup(t *testing.T) {
	Require(t)
	block := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(block); s.Close() })
	var pid int
	started = func(p int) { pid = p }
	t.Cleanup(func() { started = nil })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t0 := time.Now()
	_, err := DumpDOM(ctx, s.URL+"/")
	if err == nil {
		t.Fatal("DumpDOM of a page that never loads returned no error")
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("DumpDOM returned %v after its 3 s deadline", d)
	}
	if pid == 0 {
		t.Fatal("no process started")
	}
	poll.Until(t, 5*time.Second, fmt.Sprintf("process group %d to exit after return", pid),
		func() bool { return syscall.Kill(-pid, 0) != nil })
}

func TestPathOverride(t *testing.T) {
	t.Setenv(EnvBinary, filepath.Join(t.TempDir(), "nope"))
	if _, err := Path(); err == nil {
		t.Fatal("a missing override binary was accepted")
	}
	if _, err := DumpDOM(context.Background(), "about:blank"); err == nil {
		t.Fatal("DumpDOM ran without a binary")
	}
}

// statusLike serves a page like the daemon's: an image swapped in by a
// script, and a broken one.
func statusLike(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		fmt.Fprint(w, `<!doctype html><html><body><h1 id="state">?</h1><img id="sheet" alt="sheet"><img src="/missing.png" alt="x">
<script src="/app.js"></script></body></html>`)
	})
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `fetch("/state").then(function(r){return r.text()}).then(function(s){
  document.getElementById("state").textContent = s;
  document.getElementById("sheet").src = "/sheet.png?t=" + Date.now();
});`)
	})
	mux.HandleFunc("/state", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "GRASP") })
	mux.HandleFunc("/sheet.png", func(w http.ResponseWriter, r *http.Request) {
		img := image.NewRGBA(image.Rect(0, 0, 4, 3))
		w.Header().Set("Content-Type", "image/png")
		_ = png.Encode(w, img)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestInspectCountsImagesAndRequests(t *testing.T) {
	Require(t)
	s := statusLike(t)
	p := PollPage(t, s.URL+"/", Options{VirtualTime: 2 * time.Second}, 30*time.Second, func(p *Page) bool {
		return strings.Contains(p.DOM, ">GRASP<")
	})
	if p.ImagesLoaded != 1 || p.ImagesBroken != 1 {
		t.Errorf("images loaded %d broken %d, want 1 and 1", p.ImagesLoaded, p.ImagesBroken)
	}
	joined := strings.Join(p.Requests, "\n")
	for _, want := range []string{"GET / 200", "GET /app.js 200", "GET /state 200", "GET /sheet.png?t=", "GET /missing.png 404"} {
		if !strings.Contains(joined, want) {
			t.Errorf("requests lack %q:\n%s", want, joined)
		}
	}
	if _, err := Inspect(context.Background(), "file:///etc/hostname", Options{}); err == nil {
		t.Error("Inspect accepted a file URL")
	}
}
