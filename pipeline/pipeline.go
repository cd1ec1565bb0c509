package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/clip/upload"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ship"
	"github.com/edged-robotics/edged/tracecheck"
	"github.com/edged-robotics/edged/uplink"
)

// Options are the non-config dependencies of a Pipeline.
type Options struct {
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Version is the uplink's (the robot's retained status).
	Version string
	// ROSArgs are the ROS command-line arguments the topic names are
	// resolved with (__ns:=...), as the ROS1 node resolves them.
	ROSArgs ros.Args
	// StoreNow is the episode store's clock for Manifest.Created: nil
	// (wall time) in a live run, the recording's time in a replay.
	StoreNow func() time.Time
	// ShipOnlyToBroker opens the uplink only when uplink.broker is set
	// (a replay: without a broker it writes its output directory only).
	// Otherwise the uplink's outbox keeps what is made for a broker to
	// come (edged run).
	ShipOnlyToBroker bool
	// ROS2: the robot speaks ROS 2 (edged run under ros.version 2), so
	// incident clips carry its cameras and joints as ROS 2 messages
	// (ros2msg schemas, cdr); else ROS1.
	ROS2 bool
	// ObserveSheetBuild, when set, gets the builder work per contact
	// sheet, in seconds (the daemon's histogram).
	ObserveSheetBuild func(seconds float64)
}

// Pipeline is the stages between capture and the broker, built from one
// config: rings, sheets, the fsm stage, the episode store, ship and the
// uplink. New prepares it (no I/O but the files the config names); Open
// opens its sinks; the caller starts capture over CaptureSetup, drives
// the sheets (StartSheetLoop, or a Runner), stops capture, then Stop
// and Close. See doc.go.
type Pipeline struct {
	cfg         config.Config // topics resolved (ResolveTopics)
	log         *slog.Logger
	opts        Options
	stats       counters
	events      chan episodeEvent
	joints      jointSink
	router      frameRouter
	status      Status
	shipFailing atomic.Bool // the last outbox put failed (ship logs runs)
	rules       atomic.Pointer[tracecheck.Rules]
	checks      checkStats
	ros2Types   *cdr.Registry // bundled + ros2.msg_dirs
	topo        atomic.Pointer[Topology]
	discovery   discoveryState
	loopBeat    atomic.Int64                    // unix ns of the sheet loop's last round
	clips       atomic.Pointer[clip.Stage]      // nil: clips disabled (clips.go)
	uploads     atomic.Pointer[upload.Uploader] // nil: clips.upload empty (clips.go)
	live        bool                            // StartSheetLoop drives the runner: clips on their own goroutine

	// Set by Open and StartFSM before the caller's readers start, then
	// read-only until Stop (the caller's goroutine owns them).
	fsmCfg   fsm.Config
	machine  *fsm.Machine
	store    *epstore.Store
	up       *uplink.Uplink // nil when nothing is shipped
	out      shipper        // the uplink's ship stage, or noShipper
	stopLoop func()         // the live sheet loop's (StartSheetLoop)
	stopped  bool
	closed   bool
}

// New checks cfg (Check, with opts.ROSArgs) and prepares a pipeline of
// it: topic names resolved, the trace checks and the ROS 2 definitions
// loaded. It opens nothing.
func New(cfg *config.Config, opts Options) (*Pipeline, error) {
	if err := CheckWithArgs(cfg, opts.ROSArgs); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	resolved, err := ResolveTopics(cfg, opts.ROSArgs)
	if err != nil {
		return nil, err
	}
	rules, err := RulesOf(cfg)
	if err != nil {
		return nil, err
	}
	types, err := ros2Types(cfg)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{cfg: resolved, log: opts.Logger, opts: opts, events: make(chan episodeEvent, 256),
		ros2Types: types, out: noShipper{}}
	p.rules.Store(rules)
	p.checks.add(rules)
	p.topo.Store(&Topology{})
	return p, nil
}

// Config is the pipeline's config, its topic names resolved.
func (p *Pipeline) Config() config.Config { return p.cfg }

// Open opens the sinks: the data directory, the episode store under
// DATA_DIR/episodes (recovering from a crash, reported in the log) and
// the uplink with its ship stage (see Options.ShipOnlyToBroker). Close
// closes what it opened, also when it fails.
func (p *Pipeline) Open() error {
	if err := os.MkdirAll(p.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("data_dir: %w (create it, or set data_dir to a writable directory)", err)
	}
	if err := p.openStore(); err != nil {
		return err
	}
	if p.opts.ShipOnlyToBroker && p.cfg.Uplink.Broker == "" {
		return nil
	}
	return p.openUplink()
}

func (p *Pipeline) openStore() error {
	var err error
	minFree := int64(p.cfg.Episode.MinFreeBytes)
	if minFree == 0 {
		minFree = -1 // episode.min_free_bytes: 0 is no floor
	}
	p.store, err = epstore.Open(filepath.Join(p.cfg.DataDir, episode.EpisodesDir),
		epstore.Options{MaxBytes: int64(p.cfg.Episode.KeepBytes), MaxEpisodes: p.cfg.Episode.KeepEpisodes,
			MinFreeBytes: minFree, Now: p.opts.StoreNow, Logger: p.log})
	if err != nil {
		return err
	}
	for _, r := range p.store.Recovered() {
		p.log.Warn("daemon: recovered after a crash", "recovery", fmt.Sprintf("%+v", r))
	}
	return nil
}

// openUplink starts the uplink (its outbox in DATA_DIR/outbox, see
// uplinkConfig) and makes the shipping stage over it where products and
// joint samples go.
func (p *Pipeline) openUplink() error {
	ucfg, err := uplinkConfig(&p.cfg, p.opts.Version)
	if err != nil {
		return err
	}
	if p.up, err = uplink.New(ucfg, uplink.Options{Logger: p.log, OnUploaded: p.markUploaded, OnRepair: p.markLacking,
		CheckEpisode: ship.CheckEpisode(ucfg.Robot)}); err != nil {
		return err
	}
	p.out = ship.New(p.up, ship.Config{})
	p.joints.snippets = p.out
	return nil
}

// StartFSM starts the fsm stage when an FSM source or a recording topic
// is configured (else it does nothing); it reports episodes to the
// sheets. After CloseFSM it starts a new one (a replay after a gap).
//
// clock is the stream clock between events: capture's in a live run;
// nil in a replay, which moves the machine on with Runner.AdvanceFSM
// (the recording's time, so that a replay is deterministic).
func (p *Pipeline) StartFSM(ctx context.Context, clock func() (time.Time, bool)) error {
	p.fsmCfg = fsmConfig(&p.cfg)
	p.fsmCfg.Clock = clock
	p.fsmCfg.Observer = observer{ctx: ctx, ch: p.events}
	p.fsmCfg.Logger = p.log
	if !p.fsmCfg.Wanted() {
		return nil
	}
	var err error
	p.machine, err = fsm.New(p.fsmCfg, p.store)
	return err
}

// CloseFSM closes the fsm stage: the open episode ends, interrupted, at
// the stream clock, and its events reach the sheets. Capture must no
// longer feed it.
func (p *Pipeline) CloseFSM() error {
	if p.machine == nil {
		return nil
	}
	return p.machine.Close() // once: a second Close returns the first's error
}

// FSMTopics are the topics the fsm stage reads (none without one).
func (p *Pipeline) FSMTopics() []string {
	if p.machine == nil {
		return nil
	}
	topics, _ := p.fsmCfg.Topics()
	return topics
}

// Machine is the fsm stage (nil when none is configured).
func (p *Pipeline) Machine() *fsm.Machine { return p.machine }

// Store is the episode store (nil before Open).
func (p *Pipeline) Store() *epstore.Store { return p.store }

// Uplink is the uplink (nil when nothing is shipped).
func (p *Pipeline) Uplink() *uplink.Uplink { return p.up }

// Status is what the status page shows of the stages.
func (p *Pipeline) Status() *Status { return &p.status }

// Stop stops the stages in order once the caller closed capture: the
// fsm stage (CloseFSM), then the live sheet loop (draining its events
// and finishing the open sheets), the rings, and the uplink (flushed a
// while when a broker is set). It returns the fsm stage's error.
func (p *Pipeline) Stop() error {
	if p.stopped {
		return nil
	}
	p.stopped = true
	err := p.CloseFSM()
	if p.stopLoop != nil {
		p.stopLoop()
	}
	p.closeClips() // before the rings it reads
	p.topo.Load().closeRings()
	p.closeUplink()
	return err
}

// shutdownFlush bounds how long a stopping edged waits for the broker to
// acknowledge what is queued; the rest stays in the outbox for next time.
const shutdownFlush = 5 * time.Second

func (p *Pipeline) closeUplink() {
	if p.up == nil {
		return
	}
	if p.cfg.Uplink.Broker != "" && !p.up.Flush(shutdownFlush) {
		p.log.Warn("daemon: the broker did not acknowledge everything before shutdown; the rest stays in the outbox",
			"pending", p.up.Stats().Outbox.Pending)
	}
	if err := p.up.Close(); err != nil {
		p.log.Error("daemon: closing the uplink", "err", err)
	}
}

// Close stops what Stop did not (an early return) and closes the
// episode store. It is the last call.
func (p *Pipeline) Close() {
	if p.closed {
		return
	}
	p.closed = true
	_ = p.Stop()
	if p.store != nil {
		p.store.Close()
	}
}
