package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rosout"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ship"
	"github.com/edged-robotics/edged/tracecheck"
	"github.com/edged-robotics/edged/uplink"
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

// counters are the daemon's own cumulative counts.
type counters struct {
	sheets, sheetBytes, sheetErrors, labelSheets atomic.Uint64
	episodes, segments                           atomic.Uint64
	uploaded                                     atomic.Uint64 // episodes the receiver acknowledged
	camerasRefused                               atomic.Uint64 // discovered cameras whose directory was taken
}

// Daemon is one `edged run`. New validates and prepares; Run does the
// work until its context ends.
type Daemon struct {
	cfg         config.Config
	log         *slog.Logger
	opts        Options
	stats       counters
	events      chan episodeEvent
	running     atomic.Bool
	joints      jointSink
	status      status
	loopBeat    atomic.Int64 // unix ns of the sheet loop's last round
	shipFailing atomic.Bool  // the last outbox put failed (ship logs runs)
	buildTime   prometheus.Histogram
	rules       atomic.Pointer[tracecheck.Rules] // the trace checks (nil: none); replaced by a reload
	ros2Types   *cdr.Registry                    // ROS 2 definitions: bundled + ros2.msg_dirs (live and replay)
	checks      checkStats

	// Set by Run before the HTTP server starts, read-only afterwards.
	node     *ros.Node        // ROS1; nil under ROS 2
	ros2     *dds.Participant // ROS 2 (ros.version 2); nil under ROS1
	router   frameRouter
	fsmCfg   fsm.Config
	machine  *fsm.Machine
	store    *epstore.Store
	up       *uplink.Uplink // nil in a replay without a broker
	out      shipper        // the uplink, or noShipper
	upClosed bool           // closeUplink ran (Run's goroutine only)
	// storeNow is the episode store's clock for Manifest.Created:
	// nil (wall time) in a live run, the recording's time in a replay.
	storeNow func() time.Time

	topo      atomic.Pointer[topology]        // replaced on reload/discovery
	discovery discoveryState                  // what discovery refused (discover.go)
	capt      atomic.Pointer[capture.Capture] // nil while (re)starting
}

// New checks the config with Check (the same check as `edged config
// check`: its only I/O reads the files the config names).
func New(cfg *config.Config, opts Options) (*Daemon, error) {
	if err := CheckWithArgs(cfg, opts.ROSArgs); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RediscoverEvery <= 0 {
		opts.RediscoverEvery = 10 * time.Second
	}
	resolved, err := resolveTopics(cfg, opts.ROSArgs)
	if err != nil {
		return nil, err
	}
	rules, err := rulesOf(cfg)
	if err != nil {
		return nil, err
	}
	types, err := ros2Types(cfg)
	if err != nil {
		return nil, err
	}
	d := &Daemon{cfg: resolved, log: opts.Logger, opts: opts, events: make(chan episodeEvent, 256),
		buildTime: newSheetBuildHistogram(), ros2Types: types}
	d.rules.Store(rules)
	d.checks.add(rules)
	return d, nil
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
	if err := d.openStore(); err != nil {
		return err
	}
	defer d.store.Close()
	if err := d.openUplink(); err != nil {
		return err
	}
	// Closed after the sheet loop has enqueued the last sheets (below);
	// the defer covers the early returns.
	defer d.closeUplink()
	d.shipRecovered()
	var err error
	closeROS, err := d.joinROS(ctx)
	if err != nil {
		return err
	}
	defer closeROS()
	d.topo.Store(&topology{})
	if err := d.startFSM(ctx, d.clock); err != nil {
		return err
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
		d.sheetLoop(loopCtx, d.store.Dir(), d.clock, d.machine == nil)
	}()
	err = d.refreshOrStart(ctx, &d.cfg)
	if err != nil && ctx.Err() != nil {
		err = nil // stopped while starting (SIGTERM during a slow start): a normal stop
	}
	if err == nil {
		d.log.Info("daemon: running", "node", d.nodeName(), "data_dir", d.cfg.DataDir)
		watchdogDone := d.notifyReady(ctx)
		if reason := d.serve(ctx); reason != "" {
			err = fmt.Errorf("%w (%s); the open episode is closed as interrupted", ErrROSShutdown, reason)
			d.log.Error("daemon: stopping: the ROS graph asked this node to end", "node", d.nodeName(), "reason", reason)
		}
		d.log.Info("daemon: stopping")
		_ = sdNotify("STOPPING=1")
		<-watchdogDone
		if c := d.capt.Swap(nil); c != nil {
			c.Close()
		}
	}
	if cerr := d.closeMachine(); err == nil {
		err = cerr
	}
	stopLoop()
	<-loopDone
	d.topo.Load().closeRings()
	d.closeUplink()
	d.logSummary()
	return err
}

// logSummary logs what this run did, for the operator (and make demo).
func (d *Daemon) logSummary() {
	var published, sent uint64
	if d.up != nil {
		u := d.up.Stats()
		published, sent = u.Publisher.Published, u.Publisher.Bytes
	}
	d.log.Info("daemon: summary", "frames", d.router.frames.Load(), "joint_samples", d.joints.samples.Load(),
		"episodes", d.stats.episodes.Load(), "segments", d.stats.segments.Load(), "sheets", d.stats.sheets.Load(),
		"sheet_bytes", d.stats.sheetBytes.Load(), "label_sheets", d.stats.labelSheets.Load(),
		"mqtt_messages", published, "mqtt_bytes", sent)
}

// refreshOrStart resolves the topics and starts capture, also when the
// topology is empty (the FSM topics still need it).
func (d *Daemon) refreshOrStart(ctx context.Context, cfg *config.Config) error {
	if err := d.refresh(ctx, cfg); err != nil {
		return err
	}
	if d.capt.Load() == nil {
		return d.setTopology(ctx, d.topo.Load())
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
		r, err = resolveTopics(loaded, d.opts.ROSArgs)
		loaded = &r
	}
	var rules *tracecheck.Rules
	if err == nil {
		rules, err = rulesOf(loaded)
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
	d.setRules(rules)
	if err := d.refreshOrStart(ctx, &d.cfg); err != nil {
		d.log.Error("daemon: reload", "err", err)
		return
	}
	d.log.Info("daemon: config reloaded")
}

// openStore opens the episode store under DATA_DIR/episodes (recovering
// from a crash, reported in the log).
func (d *Daemon) openStore() error {
	var err error
	minFree := int64(d.cfg.Episode.MinFreeBytes)
	if minFree == 0 {
		minFree = -1 // episode.min_free_bytes: 0 is no floor
	}
	d.store, err = epstore.Open(filepath.Join(d.cfg.DataDir, episode.EpisodesDir),
		epstore.Options{MaxBytes: int64(d.cfg.Episode.KeepBytes), MaxEpisodes: d.cfg.Episode.KeepEpisodes,
			MinFreeBytes: minFree, Now: d.storeNow, Logger: d.log})
	if err != nil {
		return err
	}
	for _, r := range d.store.Recovered() {
		d.log.Warn("daemon: recovered after a crash", "recovery", fmt.Sprintf("%+v", r))
	}
	return nil
}

// startFSM starts the fsm stage when an FSM source or a recording topic
// is configured; it reports episodes to the sheet runner through
// d.events.
//
// clock is the stream clock between events: capture's in a live run; nil
// in a replay, which moves the machine on with Advance (the recording's
// time, so that a replay is deterministic).
func (d *Daemon) startFSM(ctx context.Context, clock func() (time.Time, bool)) error {
	d.fsmCfg = fsmConfig(&d.cfg)
	d.fsmCfg.Clock = clock
	d.fsmCfg.Observer = observer{ctx: ctx, ch: d.events}
	d.fsmCfg.Logger = d.log
	if !d.fsmCfg.Wanted() {
		return nil
	}
	var err error
	d.machine, err = fsm.New(d.fsmCfg, d.store)
	return err
}

// shutdownFlush bounds how long a stopping edged waits for the broker to
// acknowledge what is queued; the rest stays in the outbox for next time.
const shutdownFlush = 5 * time.Second

// openUplink starts the uplink (its outbox in DATA_DIR/outbox, see
// uplinkConfig) and makes the shipping stage over it where products and
// joint samples go.
func (d *Daemon) openUplink() error {
	ucfg, err := uplinkConfig(&d.cfg, d.opts.Version)
	if err != nil {
		return err
	}
	if d.up, err = uplink.New(ucfg, uplink.Options{Logger: d.log, OnUploaded: d.markUploaded, OnRepair: d.markLacking,
		CheckEpisode: ship.CheckEpisode(ucfg.Robot)}); err != nil {
		return err
	}
	d.out = ship.New(d.up, ship.Config{})
	d.joints.snippets = d.out
	return nil
}

func (d *Daemon) closeUplink() {
	if d.up == nil || d.upClosed {
		return
	}
	d.upClosed = true
	if d.cfg.Uplink.Broker != "" && !d.up.Flush(shutdownFlush) {
		d.log.Warn("daemon: the broker did not acknowledge everything before shutdown; the rest stays in the outbox",
			"pending", d.up.Stats().Outbox.Pending)
	}
	if err := d.up.Close(); err != nil {
		d.log.Error("daemon: closing the uplink", "err", err)
	}
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
