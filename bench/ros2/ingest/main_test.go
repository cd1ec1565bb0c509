package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWaitForWindow: ingest measures from BENCH_START when set, and
// refuses a window that opened before it was warm (it would measure less
// than the C subscriber).
func TestWaitForWindow(t *testing.T) {
	unix := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(time.Now().Add(d).UnixNano())/1e9) }
	for _, tc := range []struct {
		name, start string
		err         string // "" for none
	}{
		{"unset", "", ""},
		{"soon", unix(50 * time.Millisecond), ""},
		{"passed", unix(-2 * time.Second), "after the window's start (BENCH_START)"},
		{"garbled", "noon", `BENCH_START="noon": want Unix seconds`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := waitForWindow(tc.start)
			if tc.err == "" && err != nil {
				t.Fatalf("waitForWindow(%q): %v", tc.start, err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("waitForWindow(%q) = %v, want an error saying %q", tc.start, err, tc.err)
			}
		})
	}
}
