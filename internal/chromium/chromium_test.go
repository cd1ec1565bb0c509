package chromium

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive after return", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
