// Package loglimit rate-limits a repeating log line (a publisher failing
// again, drops on a full queue, refused peers): the first time at once,
// then at most once per Every with the count of what was suppressed in
// between, so a misbehaving peer cannot flood the log. The ROS1 node and
// the ROS 2 binding share it.
package loglimit

import (
	"sync"
	"time"
)

// Every is how often a repeating log line is written.
const Every = 30 * time.Second

// Limiter lets one log line through per Every and counts the rest. The
// zero value is ready; it is safe for concurrent use.
type Limiter struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// Allow reports whether to log now, and how many lines were suppressed
// since the last one that was.
func (l *Limiter) Allow() (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < Every {
		l.suppressed++
		return false, 0
	}
	l.last, suppressed, l.suppressed = now, l.suppressed, 0
	return true, suppressed
}
