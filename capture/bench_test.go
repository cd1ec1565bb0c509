package capture

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
)

type discardSink struct{}

func (discardSink) PutFrame(f Frame)      { f.Release() }
func (discardSink) PutJoints(JointSample) {}
func (discardSink) PutState(StateEvent)   {}

func benchCapture(b *testing.B) (*Capture, *topic) {
	c, err := New(Config{Cameras: []string{"/cam"}, Joints: []string{"/j"}, SimTime: SimTimeOff}, newFakeNode(),
		Sinks{Frames: discardSink{}, Joints: discardSink{}}, Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	return c, c.topics[0]
}

// BenchmarkCameraImage720p: one 1280x720 rgb8 message to one Frame,
// the per-message cost of capture on top of the ros package. It must
// not allocate: the Frame aliases the message buffer.
func BenchmarkCameraImage720p(b *testing.B) {
	c, t := benchCapture(b)
	body := imageBody(wallNow, 1280, 720, "rgb8")
	m := &ros.Message{Topic: "/cam", Publisher: pubImage, Data: body, Received: time.Now()}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		c.handle(t, m)
	}
	if t.events.Load() == 0 || t.decodeErrors.Load() != 0 {
		b.Fatal("no frames")
	}
}

func BenchmarkJoints(b *testing.B) {
	c, _ := benchCapture(b)
	t := c.topics[1]
	body := jointBody(wallNow)
	m := &ros.Message{Topic: "/j", Publisher: pubJoints, Data: body, Received: time.Now()}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		c.handle(t, m)
	}
}

func TestCameraPathDoesNotAllocate(t *testing.T) {
	c, err := New(Config{Cameras: []string{"/cam"}, SimTime: SimTimeOff}, newFakeNode(),
		Sinks{Frames: discardSink{}}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tp := c.topics[0]
	m := &ros.Message{Topic: "/cam", Publisher: pubImage, Data: imageBody(wallNow, 64, 48, "rgb8"), Received: time.Now()}
	c.handle(tp, m) // first message: encoding and frame_id strings
	if n := testing.AllocsPerRun(100, func() { c.handle(tp, m) }); n != 0 {
		t.Errorf("%v allocations per image message", n)
	}
}
