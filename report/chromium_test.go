package report

import (
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/chromium"
)

// writeHTML renders the fixture's report to a file and returns its URL.
func writeHTML(t *testing.T, f *fixture, o Options) string {
	t.Helper()
	html, _ := render(t, f.epDir, o)
	p := filepath.Join(t.TempDir(), "report.html")
	must(t, os.WriteFile(p, []byte(html), 0o644))
	return "file://" + p
}

func attr(dom, name string) string {
	m := regexp.MustCompile(`<html[^>]*\s` + name + `="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestReportRendersInChromium loads the report in headless Chromium: the
// timeline is there and every inline image decoded; then it takes a
// screenshot (kept in $EDGED_REPORT_SCREENSHOT when set, to look at).
func TestReportRendersInChromium(t *testing.T) {
	chromium.Require(t)
	f := record(t, pickPlace, "pick up the bottle and place it in the bin")
	f.writeSheets(t, "/cam/front/image_raw/compressed", 3, 5, 4)
	f.writeSheets(t, "/cam/wrist/compressed", 3, 5, 4)
	f.writeLabelSheets(t, "/cam/front/image_raw/compressed")
	url := writeHTML(t, f, Options{Annotations: []string{annotation(t, vlmAnnotation)}})

	dom := chromium.LoadDOM(t, url, chromium.Options{VirtualTime: time.Second})
	if got := attr(dom, "data-images"); got != "ok" {
		t.Errorf("data-images=%q (loaded %s, broken %s), want ok", got, attr(dom, "data-images-loaded"), attr(dom, "data-images-broken"))
	}
	if got := attr(dom, "data-images-loaded"); got != "10" {
		t.Errorf("data-images-loaded=%q, want 10 (6 sheets, 4 labeling sheets)", got)
	}
	fsm := dom[strings.Index(dom, `data-row="fsm"`):]
	fsm = fsm[:strings.Index(fsm, "</div>")]
	if n := strings.Count(fsm, `class="bar"`); n != len(pickPlace) {
		t.Errorf("FSM row has %d bars in the DOM, want %d", n, len(pickPlace))
	}
	if !strings.Contains(dom, `data-row="annotation"`) || strings.Count(dom, `data-row="sheets"`) != 2 {
		t.Error("annotation row or camera lanes missing from the DOM")
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	if d := os.Getenv("EDGED_REPORT_SCREENSHOT"); d != "" {
		shot = filepath.Join(d, "report.png")
	}
	chromium.TakeScreenshot(t, url, shot, chromium.Options{Width: 1280, Height: 1800})
	checkScreenshot(t, shot, 1280, 1800)
}

// checkScreenshot decodes the PNG and checks it is the size asked for and
// shows more than a blank page: the timeline's colored bars.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	fh, err := os.Open(path)
	must(t, err)
	defer fh.Close()
	img, err := png.Decode(fh)
	must(t, err)
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %v, want %dx%d", b, w, h)
	}
	colors := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	if len(colors) < 40 {
		t.Errorf("screenshot has %d distinct colors: blank or unstyled page", len(colors))
	}
}

// A JPEG that starts right but does not decode is reported by the page.
func TestBrokenImageIsFlaggedInChromium(t *testing.T) {
	chromium.Require(t)
	f := record(t, pickPlace, "")
	dir := f.writeSheets(t, "/cam", 2, 2, 1)
	must(t, os.WriteFile(filepath.Join(dir, "sheet-0002.jpg"), []byte("\xff\xd8\xff\xe0 truncated garbage"), 0o644))
	// no labeling sheets composed from the sheets: the two sheets alone
	dom := chromium.LoadDOM(t, writeHTML(t, f, Options{MaxLabelSheets: -1}), chromium.Options{VirtualTime: time.Second})
	if attr(dom, "data-images") != "broken" || attr(dom, "data-images-broken") != "1" || attr(dom, "data-images-loaded") != "1" {
		t.Errorf("data-images=%q loaded=%q broken=%q, want broken 1 of 2", attr(dom, "data-images"),
			attr(dom, "data-images-loaded"), attr(dom, "data-images-broken"))
	}
	if !strings.Contains(dom, "1 of 2 images failed to decode") {
		t.Error("the page does not tell the reader an image failed")
	}
}
