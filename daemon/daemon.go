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
	// Discover waits this long between asks for camera topics when none
	// are configured. Default 2s.
	DiscoverEvery time.Duration
}

// counters are the daemon's own cumulative counts.
type counters struct {
	sheets, sheetBytes, sheetErrors, labelSheets atomic.Uint64
	episodes, segments                           atomic.Uint64
}

// Daemon is one `edged run`. New validates and prepares; Run does the
// work until its context ends.
type Daemon struct {
	cfg     config.Config
	log     *slog.Logger
	opts    Options
	stats   counters
	events  chan episodeEvent
	running atomic.Bool
	joints  jointSink
	router  *frameRouter
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
	store, err := episode.Open(filepath.Join(d.cfg.DataDir, "episodes"), episode.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	for _, r := range store.Recovered() {
		d.log.Warn("daemon: recovered after a crash", "recovery", fmt.Sprintf("%+v", r))
	}

	node, err := ros.NewNode(ctx, ros.Config{MasterURI: d.cfg.ROS.MasterURI, NodeName: d.cfg.ROS.NodeName,
		Host: d.cfg.ROS.Host, Logger: d.log})
	if err != nil {
		return err
	}
	defer node.Close()

	cams, err := d.cameras(ctx, node)
	if err != nil {
		return err
	}
	var machine *fsm.Machine
	fcfg := fsm.FromConfig(&d.cfg)
	fcfg.Observer = observer{ctx: ctx, ch: d.events}
	if len(fcfg.Sources) > 0 || fcfg.RecordingTopic != "" {
		if machine, err = fsm.New(fcfg, store); err != nil {
			return err
		}
	}

	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	loopDone := make(chan struct{})
	var capt atomic.Pointer[capture.Capture]
	clock := func() (time.Time, bool) {
		if c := capt.Load(); c != nil {
			return c.Now()
		}
		return time.Time{}, false
	}
	go func() {
		defer close(loopDone)
		d.sheetLoop(loopCtx, store.Dir(), cams, clock, machine == nil)
	}()

	c, err := d.startCapture(ctx, node, cams, fcfg, machine)
	if err == nil {
		capt.Store(c)
		d.log.Info("daemon: running", "node", node.Name(), "cameras", len(cams), "data_dir", d.cfg.DataDir)
		<-ctx.Done()
		d.log.Info("daemon: stopping")
		c.Close()
	}
	if machine != nil {
		if cerr := machine.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	stopLoop()
	<-loopDone
	return err
}
