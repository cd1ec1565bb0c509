package clip

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/internal/cliptest"
	"github.com/edged-robotics/edged/ringbuf"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// newRing is a ring holding at most frames frames.
func newRing(t testing.TB, frames int) *ringbuf.Ring {
	t.Helper()
	r, err := ringbuf.New(ringbuf.Config{MaxBytes: ringbuf.MinBytes, MaxAge: time.Hour, MaxFrames: frames})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

var frameSeed uint64 // each frame's bytes differ (tests of this package run one at a time)

// camFrameID is the header.frame_id of the test cameras' frames.
const camFrameID = "cam_high_optical_frame"

// putJPEG puts a compressed frame of size bytes stamped at, in frame
// camFrameID.
func putJPEG(t testing.TB, r *ringbuf.Ring, at time.Time, size int) {
	t.Helper()
	data := make([]byte, size)
	frameSeed++
	rng := rand.New(rand.NewPCG(frameSeed, 1))
	for i := range data { // incompressible, as JPEG is
		data[i] = byte(rng.Uint32())
	}
	f := capture.Frame{Topic: "/cam", Stamp: at, Received: at, Format: capture.FormatJPEG, Encoding: "jpeg", FrameID: camFrameID, Data: data}
	if err := r.Put(&f); err != nil {
		t.Fatal(err)
	}
}

// stageFor is a synchronous stage over cams with an episode begun in a
// store under dir.
func stageFor(t testing.TB, cfg policy.Config, dir string, cams ...Camera) *Stage {
	t.Helper()
	return stageOf(t, cfg, dir, false, cams...)
}

// stageOf is stageFor writing ROS 2 messages when ros2.
func stageOf(t testing.TB, cfg policy.Config, dir string, ros2 bool, cams ...Camera) *Stage {
	t.Helper()
	return stageWith(t, cfg, dir, Options{Sync: true, ROS2: ros2}, cams...)
}

// stageWith is stageFor with opts (its Logger, StoreDir and Cameras
// set here): without opts.Sync, clips are written by the stage's own
// goroutine, as edged's are.
func stageWith(t testing.TB, cfg policy.Config, dir string, opts Options, cams ...Camera) *Stage {
	t.Helper()
	cfg.Enabled = true
	opts.Logger, opts.StoreDir = slog.New(slog.NewTextHandler(io.Discard, nil)), dir
	opts.Cameras = func() []Camera { return cams }
	s, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.History().EpisodeBegan(Episode{ID: "arm-01-ep", Dir: filepath.Join(dir, "arm-01-ep")})
	return s
}

// readClip reads a clip (cliptest.Read): messages per topic, the
// CompressedImage stamps of topic cam, and the clip's metadata.
func readClip(t *testing.T, path, cam string) (perTopic map[string]int, stamps []time.Time, meta map[string]string) {
	t.Helper()
	c := cliptest.Read(t, path, cam)
	return c.PerTopic, c.Stamps, c.Metadata[MetadataName]
}
