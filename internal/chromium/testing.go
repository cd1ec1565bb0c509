package chromium

import (
	"context"
	"testing"
	"time"
)

// Require returns the Chromium binary or skips the test with a message
// that names the missing package.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Path()
	if err != nil {
		t.Skipf("headless browser check skipped: %v", err)
	}
	return p
}

// LoadDOM loads url in headless Chromium and returns the DOM after the
// page's scripts ran (for o.VirtualTime of virtual time when set). It
// skips the test when Chromium is absent and fails it on any error. The
// run is bounded by o.Timeout (default 60 s) and by the test's deadline.
//
// From a daemon test, with the HTTP server on 127.0.0.1:PORT:
//
//	dom := chromium.LoadDOM(t, "http://127.0.0.1:PORT/", chromium.Options{VirtualTime: 2 * time.Second})
//	if !strings.Contains(dom, `data-state="GRASP"`) { t.Fatal(...) }
func LoadDOM(t testing.TB, url string, o Options) string {
	t.Helper()
	Require(t)
	ctx, cancel := testContext(t)
	defer cancel()
	dom, err := DumpDOMWith(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	return dom
}

// TakeScreenshot writes a PNG of url to png (window o.Width x o.Height),
// skipping the test when Chromium is absent and failing it on error.
func TakeScreenshot(t testing.TB, url, png string, o Options) {
	t.Helper()
	Require(t)
	ctx, cancel := testContext(t)
	defer cancel()
	if err := ScreenshotWith(ctx, url, png, o); err != nil {
		t.Fatal(err)
	}
}

type deadliner interface {
	Deadline() (deadline time.Time, ok bool)
}

func testContext(t testing.TB) (context.Context, context.CancelFunc) {
	if d, ok := t.(deadliner); ok {
		if dl, ok := d.Deadline(); ok {
			return context.WithDeadline(context.Background(), dl.Add(-2*time.Second))
		}
	}
	return context.WithCancel(context.Background())
}

// LoadPage is Inspect for tests: it skips when Chromium is absent and
// fails the test on error. From a daemon test, with the status page on
// 127.0.0.1:PORT:
//
//	p := chromium.LoadPage(t, "http://127.0.0.1:PORT/", chromium.Options{VirtualTime: 2 * time.Second})
//	if p.ImagesLoaded == 0 || p.ImagesBroken != 0 { t.Errorf("sheet image: %+v", p.Requests) }
func LoadPage(t testing.TB, url string, o Options) *Page {
	t.Helper()
	Require(t)
	ctx, cancel := testContext(t)
	defer cancel()
	p, err := Inspect(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PollPage loads url again until ready(page) holds or within expires,
// then returns the last page; it fails the test when ready never held.
// Use it when the page shows state that arrives asynchronously (the
// status page before the first sheet), instead of sleeping.
func PollPage(t testing.TB, url string, o Options, within time.Duration, ready func(*Page) bool) *Page {
	t.Helper()
	Require(t)
	ctx, cancel := testContext(t)
	defer cancel()
	deadline := time.Now().Add(within)
	for {
		p, err := Inspect(ctx, url, o)
		if err == nil && ready(p) {
			return p
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil {
				t.Fatalf("page %s never ready within %v: %v", url, within, err)
			}
			t.Fatalf("page %s never ready within %v; last requests %v, DOM:\n%.2000s", url, within, p.Requests, p.DOM)
		}
	}
}
