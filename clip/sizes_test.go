package clip

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ringbuf"
)

// TestSizePerCameraSecond measures what one second of a 1280x720
// camera at 30 fps costs in a clip (docs/clips.md, "sizes per
// camera-second"; run with -v for the figures): 30 frames of
// pan720p.mp4 (every 10th, as extracted at -q:v 3) in a ring, clipped
// through the stage, once as CompressedImages as received and once as
// raw rgb8 Images, which the clip encodes at the default quality. A
// compressed camera costs its own bytes (zstd does not shrink JPEG).
func TestSizePerCameraSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: decodes and clips 30 720p frames twice")
	}
	paths := sampledata.PanFrames(t, 10)[:30]
	var jpegs [][]byte
	var received int64
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		jpegs = append(jpegs, b)
		received += int64(len(b))
	}
	for _, tc := range []struct {
		name string
		raw  bool
	}{{"compressed as received", false}, {"raw at default quality", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 128 << 20, MaxAge: time.Minute, MaxFrames: 64})
			if err != nil {
				t.Fatal(err)
			}
			defer ring.Close()
			for i, b := range jpegs {
				f := sizeFrame(t, b, tc.raw)
				f.Topic, f.Stamp = "/cam", t0.Add(time.Duration(i)*time.Second/30)
				f.Received = f.Stamp
				if err := ring.Put(&f); err != nil {
					t.Fatal(err)
				}
			}
			cfg := policy.Default()
			cfg.Pre, cfg.Post = time.Second, 0
			s := stageFor(t, cfg, t.TempDir(), Camera{Name: "cam", Topic: "/cam", Ring: ring})
			at := t0.Add(29 * time.Second / 30)
			p, err := s.Trigger(Trigger{Kind: KindRequest, Time: at})
			if err != nil {
				t.Fatal(err)
			}
			s.Advance(at.Add(settle))
			r := p.Result()
			if r.Err != nil || r.Frames != len(jpegs) {
				t.Fatalf("clip: %d frames of %d, %v", r.Frames, len(jpegs), r.Err)
			}
			t.Logf("%s: %d frames, %.2f MB per camera-second (1280x720, 30 fps; the frames as received: %.2f MB)",
				tc.name, r.Frames, float64(r.Bytes)/1e6, float64(received)/1e6)
			if !tc.raw && (r.Bytes < received || r.Bytes > received+received/20) {
				t.Errorf("a compressed camera's clip is %d bytes, its frames %d: want them within 5%%", r.Bytes, received)
			}
		})
	}
}

// sizeFrame is a JPEG frame as received, or decoded to a raw rgb8 one.
func sizeFrame(t *testing.T, b []byte, raw bool) capture.Frame {
	if !raw {
		return capture.Frame{Format: capture.FormatJPEG, Encoding: "jpeg", Data: b}
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	w, h := rgba.Bounds().Dx(), rgba.Bounds().Dy()
	rgb := make([]byte, 0, w*h*3)
	for i := 0; i < len(rgba.Pix); i += 4 {
		rgb = append(rgb, rgba.Pix[i:i+3]...)
	}
	return capture.Frame{Format: capture.FormatRaw, Encoding: "rgb8", Width: w, Height: h, Step: w * 3, Data: rgb}
}
