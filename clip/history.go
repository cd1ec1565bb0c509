package clip

import (
	"sync"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
)

// Bounds of a History besides its age (pre + post + historySlack).
const (
	// DefaultHistoryBytes bounds the joint samples kept: 100 Hz of a
	// 7-joint arm for a minute is about 2 MiB.
	DefaultHistoryBytes = 8 << 20
	// maxTransitions and maxSegments bound the FSM's part.
	maxTransitions = 4096
	maxSegments    = 4096
	// historySlack keeps a little more than a window, so a clip read
	// somewhat after trigger+post still finds its start.
	historySlack = 10 * time.Second
)

// History keeps what the rings do not: the recent joint samples and FSM
// transitions, bounded by bytes (or count) and by age relative to the
// newest, and the segments of the current episode. Joint samples come
// from capture's goroutines, the FSM's part from the pipeline's sheet
// loop; clips read it from the stage's goroutine: every method locks.
type History struct {
	mu         sync.Mutex
	maxAge     time.Duration
	maxBytes   int
	joints     []capture.JointSample
	jointBytes int
	dropped    uint64 // samples dropped by the byte bound before their age
	trans      []episode.Transition
	cur        Episode // the open (or last) episode
	segs       []episode.Segment
}

// Episode names the episode a clip belongs to.
type Episode struct {
	ID  string
	Dir string // its directory in the store
}

func newHistory(maxAge time.Duration, maxBytes int) *History {
	return &History{maxAge: maxAge, maxBytes: maxBytes}
}

// jointBytes estimates what a sample holds in memory.
func sampleBytes(s *capture.JointSample) int {
	n := 96 + 8*(len(s.Position)+len(s.Velocity)+len(s.Effort))
	for _, name := range s.Names {
		n += 16 + len(name)
	}
	return n
}

// PutJoints keeps s (capture's JointSink; the history owns s's slices
// afterwards, as capture allocates them per message). It never blocks
// on a reader longer than a copy of the window.
func (h *History) PutJoints(s capture.JointSample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.joints = append(h.joints, s)
	h.jointBytes += sampleBytes(&s)
	limit := s.Stamp.Add(-h.maxAge)
	for len(h.joints) > 1 && (h.jointBytes > h.maxBytes || h.joints[0].Stamp.Before(limit)) {
		if !h.joints[0].Stamp.Before(limit) {
			h.dropped++
		}
		h.jointBytes -= sampleBytes(&h.joints[0])
		h.joints[0] = capture.JointSample{}
		h.joints = h.joints[1:]
	}
}

// Transition keeps one FSM transition.
func (h *History) Transition(t episode.Transition) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trans = append(h.trans, t)
	limit := t.Stamp.Add(-h.maxAge)
	for len(h.trans) > maxTransitions || len(h.trans) > 1 && h.trans[0].Stamp.Before(limit) {
		h.trans = h.trans[1:]
	}
}

// EpisodeBegan makes e the episode later clips belong to; its segments
// start empty.
func (h *History) EpisodeBegan(e Episode) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur, h.segs = e, nil
}

// SegmentClosed keeps a closed segment of the current episode.
func (h *History) SegmentClosed(s episode.Segment) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.segs) < maxSegments {
		h.segs = append(h.segs, s)
	}
}

// Episode is the open episode, or the last one (ok false: none yet).
func (h *History) Episode() (Episode, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur, h.cur.Dir != ""
}

// window copies what the history holds for [from, to] (segments: all
// of the episode so far).
func (h *History) window(from, to time.Time) (joints []capture.JointSample, trans []episode.Transition, segs []episode.Segment) {
	h.mu.Lock()
	defer h.mu.Unlock()
	in := func(t time.Time) bool { return !t.Before(from) && !t.After(to) }
	for _, s := range h.joints {
		if in(s.Stamp) {
			joints = append(joints, s) // the slices are never written again: sharing them is safe
		}
	}
	for _, t := range h.trans {
		if in(t.Stamp) {
			trans = append(trans, t)
		}
	}
	return joints, trans, append([]episode.Segment(nil), h.segs...)
}
