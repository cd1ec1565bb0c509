package sheet

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// panFrames extracts 1280x720 JPEGs from pan720p.mp4, every nth frame
// (1: all 300) (sampledata.PanFrames).
func panFrames(t testing.TB, every int) []string { return sampledata.PanFrames(t, every) }

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
