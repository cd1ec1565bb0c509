package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rosout"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/tracecheck"
	"github.com/prometheus/client_golang/prometheus"
)

// Options are the non-config dependencies of a Daemon.
type Options struct {
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Version is reported on the status page.
	Version string
	// Reload, when it receives, reloads the config with LoadConfig and
	// applies its camera and joint topics and its trace checks (cmd
	// wires SIGHUP to it).
	Reload <-chan struct{}
	// LoadConfig reads the config again for Reload. Default: none
	// (Reload then only re-discovers topics).
	LoadConfig func() (*config.Config, error)
	// RediscoverEvery is how often the master is asked for camera and
	// joint topics when a role has none configured. Default 10s.
	RediscoverEvery time.Duration
	// ROSArgs are the ROS command-line arguments (__name:=, __ns:=,
	// remappings...), laid over the config's ros section.
	ROSArgs ros.Args
	// Rosout, when set, is the handler under Logger: Run advertises
	// /rosout and attaches it, so the log also reaches the ROS graph.
	Rosout *rosout.Handler
	// LogLevel, when set, is the log's level: Run serves it to
	// rosconsole tools (~get_loggers, ~set_logger_level).
	LogLevel *slog.LevelVar
}

// ErrROSShutdown is returned by Run when the ROS graph asked edged to
// end (rosnode kill, or a newer node registered the same name): the
// open episode is closed as interrupted and edged exits with
// ExitROSShutdown, which the systemd unit does not restart (restarting
// would take the name back from the node that now owns it).
var ErrROSShutdown = errors.New("the ROS graph asked edged to shut down")

// ExitROSShutdown is edged run's exit status after ErrROSShutdown.
const ExitROSShutdown = 3

// Daemon is one `edged run`: the stages (package pipeline) fed by
// capture from the ROS graph, with the status page, reload and systemd's
// notifications. New validates and prepares; Run does the work until
// its context ends.
type Daemon struct {
	cfg       config.Config // topics resolved; Reload replaces cameras, joints and checks
	log       *slog.Logger
	opts      Options
	pipe      *pipeline.Pipeline
	running   atomic.Bool
	buildTime prometheus.Histogram

	// Set by Run before the HTTP server starts, read-only afterwards.
	node *ros.Node        // ROS1; nil under ROS 2
	ros2 *dds.Participant // ROS 2 (ros.version 2); nil under ROS1

	capt atomic.Pointer[capture.Capture] // nil while (re)starting
}

// New checks the config with Check (the same check as `edged config
// check`: its only I/O reads the files the config names) and prepares
// the stages (pipeline.New).
func New(cfg *config.Config, opts Options) (*Daemon, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RediscoverEvery <= 0 {
		opts.RediscoverEvery = 10 * time.Second
	}
	d := &Daemon{log: opts.Logger, opts: opts, buildTime: newSheetBuildHistogram()}
	p, err := pipeline.New(cfg, pipeline.Options{Logger: opts.Logger, Version: opts.Version, ROSArgs: opts.ROSArgs,
		ROS2: rosVersion(cfg) == 2, ObserveSheetBuild: d.buildTime.Observe})
	if err != nil {
		return nil, err
	}
	d.pipe, d.cfg = p, p.Config()
	return d, nil
}

// Run joins the ROS graph and records until ctx ends, then shuts down in
// order: sources first, the open episode closed as interrupted, the last
// sheets written. It returns the first error that stopped it, or nil.
func (d *Daemon) Run(ctx context.Context) error {
	if !d.running.CompareAndSwap(false, true) {
		return errors.New("daemon: Run called twice")
	}
	p := d.pipe
	defer p.Close() // the store last; the stages when an early return skipped Stop
	if err := p.Open(); err != nil {
		return err
	}
	p.ShipRecovered()
	closeROS, err := d.joinROS(ctx)
	if err != nil {
		return err
	}
	defer closeROS()
	if err := p.StartFSM(ctx, d.clock); err != nil {
		return err
	}
	stopHTTP, err := d.serveHTTP()
	if err != nil {
		return err
	}
	defer stopHTTP()
	// Sinks before sources: the sheet loop, then capture.
	p.StartSheetLoop(ctx, d.clock)
	err = d.record(ctx)
	if c := d.capt.Swap(nil); c != nil {
		c.Close()
	}
	if serr := p.Stop(); err == nil {
		err = serr
	}
	d.logSummary()
	return err
}

// record starts capture and serves until ctx ends or the ROS graph asks
// the node to end (ErrROSShutdown).
func (d *Daemon) record(ctx context.Context) error {
	err := d.refreshOrStart(ctx, &d.cfg)
	if err != nil && ctx.Err() != nil {
		err = nil // stopped while starting (SIGTERM during a slow start): a normal stop
	}
	if err != nil {
		return err
	}
	d.log.Info("daemon: running", "node", d.nodeName(), "data_dir", d.cfg.DataDir)
	watchdogDone := d.notifyReady(ctx)
	if reason := d.serve(ctx); reason != "" {
		err = fmt.Errorf("%w (%s); the open episode is closed as interrupted", ErrROSShutdown, reason)
		d.log.Error("daemon: stopping: the ROS graph asked this node to end", "node", d.nodeName(), "reason", reason)
	}
	d.log.Info("daemon: stopping")
	_ = sdNotify("STOPPING=1")
	<-watchdogDone
	return err
}

// logSummary logs what this run did, for the operator (and make demo).
func (d *Daemon) logSummary() {
	var published, sent uint64
	if up := d.pipe.Uplink(); up != nil {
		u := up.Stats()
		published, sent = u.Publisher.Published, u.Publisher.Bytes
	}
	st := d.pipe.Stats()
	d.log.Info("daemon: summary", "frames", st.Frames, "joint_samples", st.JointSamples,
		"episodes", st.Episodes, "segments", st.Segments, "sheets", st.Sheets,
		"sheet_bytes", st.SheetBytes, "label_sheets", st.LabelSheets,
		"mqtt_messages", published, "mqtt_bytes", sent)
}

// refreshOrStart resolves the topics and starts capture, also when the
// topology is empty (the FSM topics still need it).
func (d *Daemon) refreshOrStart(ctx context.Context, cfg *config.Config) error {
	if err := d.refresh(ctx, cfg); err != nil {
		return err
	}
	if d.capt.Load() == nil {
		return d.setTopology(ctx, d.pipe.Topology())
	}
	return nil
}

// serve waits for the end, reloading on Reload and re-discovering topics
// for roles with none configured. It returns why the ROS graph asked
// the node to end, or "" when ctx ended.
func (d *Daemon) serve(ctx context.Context) string {
	var rediscover <-chan time.Time
	if len(d.cfg.Cameras) == 0 || len(d.cfg.Joints) == 0 {
		t := time.NewTicker(d.opts.RediscoverEvery)
		defer t.Stop()
		rediscover = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-d.shutdown():
			return d.node.ShutdownReason()
		case <-d.opts.Reload:
			d.reload(ctx)
		case <-rediscover:
			if err := d.refresh(ctx, &d.cfg); err != nil {
				d.log.Error("daemon: applying discovered topics", "err", err)
			}
		}
	}
}

// reload reads the config again and applies its camera and joint topics
// and its trace checks (the rules file read again: episodes closing from
// now on are judged by them); other changes need a restart and are
// reported. A config or rules file that does not load is refused whole:
// the running topics and checks stay.
func (d *Daemon) reload(ctx context.Context) {
	if d.opts.LoadConfig == nil {
		_ = d.refresh(ctx, &d.cfg)
		return
	}
	loaded, err := d.opts.LoadConfig()
	if err == nil {
		var r config.Config
		r, err = pipeline.ResolveTopics(loaded, d.opts.ROSArgs)
		loaded = &r
	}
	var rules *tracecheck.Rules
	if err == nil {
		rules, err = pipeline.RulesOf(loaded)
	}
	if err != nil {
		d.log.Error("daemon: reload refused; keeping the running config and trace checks (fix the file and send SIGHUP again)", "err", err)
		return
	}
	cfg := loaded
	rest := *cfg
	rest.Cameras, rest.Joints, rest.Checks = d.cfg.Cameras, d.cfg.Joints, d.cfg.Checks
	if !reflect.DeepEqual(rest, d.cfg) {
		d.log.Warn("daemon: reload applies cameras, joints and checks only; restart edged for the other changes")
	}
	d.cfg.Cameras, d.cfg.Joints, d.cfg.Checks = cfg.Cameras, cfg.Joints, cfg.Checks
	d.pipe.SetRules(rules)
	if err := d.refreshOrStart(ctx, &d.cfg); err != nil {
		d.log.Error("daemon: reload", "err", err)
		return
	}
	d.log.Info("daemon: config reloaded")
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
