package poll

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	var n atomic.Int32
	Until(t, 5*time.Second, "the third call", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Errorf("cond called %d times after it held, want 3", n.Load())
	}
}

func TestUntilTimesOut(t *testing.T) {
	err := until(30*time.Millisecond, "never", func() bool { return false })
	if err == nil || !strings.Contains(err.Error(), "waiting for never") {
		t.Fatalf("err = %v, want a timeout naming what was awaited", err)
	}
}
