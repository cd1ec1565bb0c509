package clip

import (
	"slices"
	"time"

	"github.com/edged-robotics/edged/ringbuf"
)

// Frames is what a clip reads of a camera's ring: the frames of a
// window listed (metadata only), then each copied by its sequence
// number, which fails once the ring overwrote it (*ringbuf.Ring).
type Frames interface {
	Range(from, to time.Time, dst []ringbuf.Meta) []ringbuf.Meta
	Copy(seq uint64, dst []byte) ([]byte, bool)
}

// Camera is one camera a clip reads: its configured name (or topic),
// its topic and its ring.
type Camera struct {
	Name, Topic string
	Ring        Frames
}

// listed is one camera's frames of a window, by stamp.
type listed struct {
	cam    Camera
	frames []ringbuf.Meta
}

// listWindow lists every camera's frames in [from, to], each camera's
// in stamp order (the ring keeps arrival order).
func listWindow(cams []Camera, from, to time.Time) []listed {
	out := make([]listed, 0, len(cams))
	for _, c := range cams {
		if c.Ring == nil {
			continue
		}
		m := c.Ring.Range(from, to, nil)
		slices.SortStableFunc(m, func(a, b ringbuf.Meta) int { return a.Stamp.Compare(b.Stamp) })
		out = append(out, listed{cam: c, frames: m})
	}
	return out
}
