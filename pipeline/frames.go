package pipeline

import (
	"sync/atomic"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/ringbuf"
)

// frameRouter is capture's FrameSink: it copies each frame into its
// camera's ring and releases it. The topic->ring map is replaced whole
// (use) when the topology changes, never mutated.
type frameRouter struct {
	rings   atomic.Pointer[map[string]*ringbuf.Ring]
	frames  atomic.Uint64 // frames stored in a ring
	dropped atomic.Uint64 // frames for no ring, or too large for theirs
}

func (r *frameRouter) use(cams []camera) {
	m := make(map[string]*ringbuf.Ring, len(cams))
	for _, c := range cams {
		m[c.topic] = c.ring
	}
	r.rings.Store(&m)
}

func (r *frameRouter) PutFrame(f capture.Frame) {
	var ring *ringbuf.Ring
	if m := r.rings.Load(); m != nil {
		ring = (*m)[f.Topic]
	}
	if ring == nil || ring.Put(&f) != nil {
		r.dropped.Add(1)
	} else {
		r.frames.Add(1)
	}
	f.Release()
}

// jointSink counts joint samples and hands them to the uplink's snippet
// recorder (bounded, never blocking). snippets is set before capture
// starts and not changed while it runs.
type jointSink struct {
	samples  atomic.Uint64
	snippets capture.JointSink
	clips    atomic.Pointer[clip.History] // set when the clip stage starts
}

func (j *jointSink) PutJoints(s capture.JointSample) {
	j.samples.Add(1)
	if h := j.clips.Load(); h != nil {
		h.PutJoints(s)
	}
	if j.snippets != nil {
		j.snippets.PutJoints(s)
	}
}
