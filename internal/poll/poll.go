// Package poll is the one way tests wait for something to happen: they
// poll a condition until it holds or a deadline passes, never sleep a
// fixed time and hope (CONTRIBUTING.md). Test helpers only; nothing in
// a production binary imports it.
package poll

import (
	"fmt"
	"testing"
	"time"
)

// maxInterval bounds the pause between checks: short enough that a test
// goes on soon after the condition holds, long enough not to spin on the
// machine's two shared cores.
const maxInterval = 20 * time.Millisecond

// Until calls cond until it returns true, failing the test with "timed
// out waiting for WHAT" if timeout passes first.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := until(timeout, what, cond); err != nil {
		t.Fatal(err)
	}
}

// until is Until without the test, so the timeout is testable too.
func until(timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, maxInterval)
	}
	return nil
}
