package ros

import (
	"sync"
	"time"
)

// logEvery is how often a repeating log line (a publisher failing again,
// drops on a full queue, refused publisher URIs) is written: the first
// time at once, then at most once per interval with the count of what
// was suppressed in between, so a misbehaving peer cannot flood the log.
const logEvery = 30 * time.Second

// logLimiter lets one log line through per logEvery and counts the rest.
type logLimiter struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// allow reports whether to log now, and how many lines were suppressed
// since the last one that was.
func (l *logLimiter) allow() (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < logEvery {
		l.suppressed++
		return false, 0
	}
	l.last, suppressed, l.suppressed = now, l.suppressed, 0
	return true, suppressed
}
