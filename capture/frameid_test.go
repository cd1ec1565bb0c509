package capture

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// compressedIn is a ROS1 CompressedImage in frame frameID.
func compressedIn(stamp time.Time, frameID string, data []byte) []byte {
	b := (&wire{}).u32(1).stamp(stamp).str(frameID).str("jpeg").u32(uint32(len(data)))
	return append(b.b, data...)
}

var pubCompressedCDR = &ros.PublisherInfo{CallerID: "/cam", Type: cdr.TypeCompressedImage, Encoding: ros.EncodingCDR}

// A camera frame carries its header.frame_id, ROS1 and ROS 2 alike (a
// clip writes it back); one over MaxFrameIDBytes is hostile input: the
// frame is kept with an empty id and the drop counted, so a ring never
// holds such ids.
func TestFrameCarriesFrameID(t *testing.T) {
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2}
	long := strings.Repeat("x", MaxFrameIDBytes+1)
	atCap := strings.Repeat("y", MaxFrameIDBytes)
	cases := []struct {
		name    string
		pub     *ros.PublisherInfo
		body    []byte
		want    string
		dropped uint64
	}{
		{"ros1", pubCompressed, compressedIn(wallNow, "cam_high_optical_frame", jpeg), "cam_high_optical_frame", 0},
		{"ros2", pubCompressedCDR, cdr.AppendCompressedImage(nil, wallNow, "cam_high_optical_frame", "jpeg", jpeg), "cam_high_optical_frame", 0},
		{"ros1 at the cap", pubCompressed, compressedIn(wallNow, atCap, jpeg), atCap, 0},
		{"ros1 over the cap", pubCompressed, compressedIn(wallNow, long, jpeg), "", 1},
		{"ros2 over the cap", pubCompressedCDR, cdr.AppendCompressedImage(nil, wallNow, long, "jpeg", jpeg), "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, newFakeNode())
			h.send("/cam", message("/cam", c.pub, c.body, wallNow))
			s := h.stats("/cam")
			if len(h.rec.frames) != 1 || s.FrameIDDrops != c.dropped {
				t.Fatalf("%d frames, stats %+v; want 1 frame, %d frame id drops", len(h.rec.frames), s, c.dropped)
			}
			if got := h.rec.frames[0].FrameID; got != c.want {
				t.Errorf("FrameID %.40q (%d bytes), want %.40q", got, len(got), c.want)
			}
			h.rel.check(t, h.sent)
		})
	}
}

// A ROS 2 camera's frame_id costs no allocation per frame either: the
// decoder reuses the id while it does not change.
func TestCDRFrameIDDoesNotAllocate(t *testing.T) {
	c, err := New(Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, newFakeNode(),
		Sinks{Frames: discardSink{}}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tp := c.topics[0]
	body := cdr.AppendCompressedImage(nil, wallNow, "cam_high_optical_frame", "jpeg", []byte{0xff, 0xd8, 0xff, 0xe0})
	m := &ros.Message{Topic: "/cam", Publisher: pubCompressedCDR, Data: body, Received: time.Now()}
	c.handle(tp, m) // first message: format and frame_id strings
	if n := testing.AllocsPerRun(100, func() { c.handle(tp, m) }); n != 0 {
		t.Errorf("%v allocations per CDR image message", n)
	}
	if tp.events.Load() == 0 {
		t.Fatal("no frames")
	}
}
