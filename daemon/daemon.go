package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros"
)

// Options are the non-config dependencies of a Daemon.
type Options struct {
	// Logger; default slog.Default().
	Logger *slog.Logger
	// DiscoverEvery is the wait between asks for camera topics when none
	// are configured and the master does not answer. Default 2s.
	DiscoverEvery time.Duration
	// Version is reported on the status page.
	Version string
}

// counters are the daemon's own cumulative counts.
type counters struct {
	sheets, sheetBytes, sheetErrors, labelSheets atomic.Uint64
	episodes, segments                           atomic.Uint64
}

// Daemon is one `edged run`. New validates and prepares; Run does the
// work until its context ends.
type Daemon struct {
	cfg      config.Config
	log      *slog.Logger
	opts     Options
	stats    counters
	events   chan episodeEvent
	running  atomic.Bool
	joints   jointSink
	status   status
	loopBeat atomic.Int64 // unix ns of the sheet loop's last round

	// Set by Run before the HTTP server starts, read-only afterwards.
	node    *ros.Node
	cams    []camera
	router  *frameRouter
	machine *fsm.Machine
	store   *episode.Store
	capt    atomic.Pointer[capture.Capture] // nil until capture started
}

// New checks the config; it does no I/O.
func New(cfg *config.Config, opts Options) (*Daemon, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.DiscoverEvery <= 0 {
		opts.DiscoverEvery = 2 * time.Second
	}
	return &Daemon{cfg: *cfg, log: opts.Logger, opts: opts, events: make(chan episodeEvent, 256)}, nil
}

// Run joins the ROS graph and records until ctx ends, then shuts down in
// order: sources first, the open episode closed as interrupted, the last
// sheets written. It returns the first error that stopped it, or nil.
func (d *Daemon) Run(ctx context.Context) error {
	if !d.running.CompareAndSwap(false, true) {
		return errors.New("daemon: Run called twice")
	}
	if err := os.MkdirAll(d.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("data_dir: %w (create it, or set data_dir to a writable directory)", err)
	}
	var err error
	if d.store, err = episode.Open(filepath.Join(d.cfg.DataDir, "episodes"), episode.Options{}); err != nil {
		return err
	}
	defer d.store.Close()
	for _, r := range d.store.Recovered() {
		d.log.Warn("daemon: recovered after a crash", "recovery", fmt.Sprintf("%+v", r))
	}
	if d.node, err = ros.NewNode(ctx, ros.Config{MasterURI: d.cfg.ROS.MasterURI, NodeName: d.cfg.ROS.NodeName,
		Host: d.cfg.ROS.Host, Logger: d.log}); err != nil {
		return err
	}
	defer d.node.Close()
	if d.cams, err = d.cameras(ctx, d.node); err != nil {
		return err
	}
	d.router = newFrameRouter(d.cams)
	fcfg := fsm.FromConfig(&d.cfg)
	fcfg.Observer = observer{ctx: ctx, ch: d.events}
	if len(fcfg.Sources) > 0 || fcfg.RecordingTopic != "" {
		if d.machine, err = fsm.New(fcfg, d.store); err != nil {
			return err
		}
	}
	stopHTTP, err := d.serveHTTP()
	if err != nil {
		d.closeMachine()
		return err
	}
	defer stopHTTP()

	// Sinks before sources: the sheet loop, then capture.
	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		d.sheetLoop(loopCtx, d.store.Dir(), d.cams, d.clock, d.machine == nil)
	}()
	c, err := d.startCapture(ctx, fcfg)
	if err == nil {
		d.capt.Store(c)
		d.log.Info("daemon: running", "node", d.node.Name(), "cameras", len(d.cams), "data_dir", d.cfg.DataDir)
		watchdogDone := d.notifyReady(ctx)
		<-ctx.Done()
		d.log.Info("daemon: stopping")
		_ = sdNotify("STOPPING=1")
		<-watchdogDone
		c.Close()
	}
	if cerr := d.closeMachine(); err == nil {
		err = cerr
	}
	stopLoop()
	<-loopDone
	return err
}

// clock is the capture clock (wall time, or /clock under sim time).
func (d *Daemon) clock() (time.Time, bool) {
	if c := d.capt.Load(); c != nil {
		return c.Now()
	}
	return time.Time{}, false
}

// notifyReady tells systemd the pipeline is up and starts feeding its
// watchdog (both only under systemd). The returned channel closes when
// the watchdog goroutine has returned (after ctx ends).
func (d *Daemon) notifyReady(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if err := sdNotify("READY=1\nSTATUS=recording"); err != nil {
		d.log.Warn("daemon: systemd notify", "err", err)
	}
	every := watchdogInterval()
	if every <= 0 {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		d.feedWatchdog(ctx, every)
	}()
	return done
}

func (d *Daemon) closeMachine() error {
	if d.machine == nil {
		return nil
	}
	return d.machine.Close()
}
