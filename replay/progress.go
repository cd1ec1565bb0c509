package replay

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/edged-robotics/edged/bag/recording"
)

// progress draws a one-line progress bar of a replay, at most every
// 100 ms of wall time. A nil writer draws nothing.
type progress struct {
	w          io.Writer
	start, end time.Time // the recordings' span
	began      time.Time // wall
	last       time.Time // wall of the last draw
}

func newProgress(w io.Writer, readers []recording.Recording) *progress {
	p := &progress{w: w, began: time.Now()}
	for _, r := range readers {
		in := r.Info()
		if p.start.IsZero() || (!in.Start.IsZero() && in.Start.Before(p.start)) {
			p.start = in.Start
		}
		if in.End.After(p.end) {
			p.end = in.End
		}
	}
	return p
}

func (p *progress) update(t time.Time, n uint64) {
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw(t, n)
}

func (p *progress) done(n uint64) {
	if p.w == nil {
		return
	}
	p.draw(p.end, n)
	fmt.Fprintln(p.w)
}

func (p *progress) draw(t time.Time, n uint64) {
	total := p.end.Sub(p.start)
	frac := 1.0
	if total > 0 {
		frac = min(max(float64(t.Sub(p.start))/float64(total), 0), 1)
	}
	const width = 30
	bar := strings.Repeat("=", int(frac*width)) + strings.Repeat(" ", width-int(frac*width))
	wall := time.Since(p.began).Seconds()
	speed := 0.0
	if wall > 0 {
		speed = t.Sub(p.start).Seconds() / wall
	}
	fmt.Fprintf(p.w, "\r[%s] %3.0f%%  %6.1fs of %.1fs  %d messages  %.1fx real time", bar, frac*100,
		t.Sub(p.start).Seconds(), total.Seconds(), n, speed)
}
