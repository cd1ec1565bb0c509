package sheet

import (
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// panFrames extracts 1280x720 JPEGs from pan720p.mp4 into a temp dir with
// ffmpeg, every nth frame (1: all 300), and returns their paths in order.
func panFrames(t testing.TB, every int) []string {
	t.Helper()
	mp4 := sampledata.Path(t, "pan720p.mp4")
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed (make deps): needed to extract frames from pan720p.mp4")
	}
	dir := t.TempDir()
	args := []string{"-loglevel", "error", "-i", mp4, "-q:v", "3"}
	if every > 1 {
		args = append(args, "-vf", "select=not(mod(n\\,"+itoa(every)+"))", "-fps_mode", "passthrough")
	}
	args = append(args, filepath.Join(dir, "f%04d.jpg"))
	if out, err := exec.Command(ff, args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "f*.jpg"))
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("ffmpeg extracted no frames")
	}
	return paths
}

func itoa(i int) string {
	return string(formatInt(i))
}

func formatInt(i int) []byte {
	if i == 0 {
		return []byte("0")
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return b
}

// testJPEG encodes a w x h image of one colour.
func testJPEG(t testing.TB, w, h int, c [3]byte) []byte {
	t.Helper()
	pix := make([]byte, w*h*3)
	for i := 0; i < len(pix); i += 3 {
		pix[i], pix[i+1], pix[i+2] = c[0], c[1], c[2]
	}
	e, err := turbojpeg.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	j, err := e.Encode(nil, pix, w, h, w*3, 95, turbojpeg.Subsamp444)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), j...)
}

var epoch = time.Unix(1776842526, 0)

// collector gathers cloned sheets from a Builder.
type collector struct{ sheets []*Sheet }

func (c *collector) emit(s *Sheet) error {
	c.sheets = append(c.sheets, s.Clone())
	return nil
}

func newTestBuilder(t testing.TB, src Source, r Recipe, c *collector) *Builder {
	t.Helper()
	b, err := NewBuilder(BuilderConfig{Camera: "/cam", Recipe: r, Start: epoch, Source: src, Emit: c.emit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func newRing(t testing.TB, c ringbuf.Config) *ringbuf.Ring {
	t.Helper()
	r, err := ringbuf.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jpegFrame(data []byte, at time.Time) capture.Frame {
	return capture.Frame{Topic: "/cam", Stamp: at, Format: capture.FormatJPEG, Data: data}
}
