package daemon

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
)

// runTimeout bounds how long Run may take to return once cancelled: it
// returns in well under a second; -race on a loaded machine is slow.
const runTimeout = 20 * time.Second

// parseConfig is the daemon config of yaml; the test fails when it does
// not parse.
func parseConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// daemonRun is a daemon's Run in a goroutine of the test's.
type daemonRun struct {
	ctx    context.Context // Run's; cancelled by stop and when the test ends
	cancel context.CancelFunc
	done   chan struct{} // closed once Run has returned
	err    error         // Run's return, set before done is closed
	taken  bool          // the test took Run's error (wait): the cleanup leaves it
}

// runDaemon builds the daemon of cfg with opts (its log discarded when
// opts has no Logger) and runs it until the test ends: t.Cleanup cancels
// Run, waits for it and fails the test on an error of Run's the test did
// not take (wait, stop). Registered after the caller's t.TempDir, the
// cleanup runs first: Run has stopped writing before the directory goes.
func runDaemon(t *testing.T, cfg *config.Config, opts Options) (*Daemon, *daemonRun) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &daemonRun{done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(r.done)
		r.err = d.Run(r.ctx)
	}()
	t.Cleanup(func() {
		r.cancel()
		<-r.done
		if r.err != nil && !r.taken {
			t.Errorf("Run: %v", r.err)
		}
	})
	return d, r
}

// wait waits up to timeout for Run to return by itself; returned is
// false while it runs. Once returned, Run's error is the test's to judge.
func (r *daemonRun) wait(timeout time.Duration) (returned bool, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-r.done:
	case <-timer.C:
		select {
		case <-r.done:
		default:
			return false, nil
		}
	}
	r.taken = true
	return true, r.err
}

// stop cancels Run and fails the test unless Run returns nil within
// runTimeout.
func (r *daemonRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	returned, err := r.wait(runTimeout)
	if !returned {
		t.Fatalf("Run did not return within %v of cancel", runTimeout)
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
}
