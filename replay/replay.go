package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/bag/recording"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
)

// Options are the non-config dependencies of a Replay.
type Options struct {
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Version is the uplink's, when the replay ships to a broker.
	Version string
}

// Replay is one `edged replay`: the stages of edged run (package
// pipeline) fed by capture.Replay from recordings instead of a ROS graph.
// New validates and prepares; Run replays once.
type Replay struct {
	cfg     config.Config // topics resolved
	log     *slog.Logger
	pipe    *pipeline.Pipeline
	running atomic.Bool
	// rp is the capture of the running replay, set by Run before the
	// first message (the store's clock reads it: see New).
	rp *capture.Replay
}

// ErrDamagedInput is matched (errors.Is) by the error Run returns when a
// bag was damaged but everything readable was replayed: the output is
// complete for what could be read (see Summary.Damage). `edged replay`
// exits non-zero on it unless --keep-going.
var ErrDamagedInput = errors.New("damaged input")

// New checks the config as edged run does (pipeline.Check) and prepares
// the stages; it opens nothing. A replayed episode is created at the
// recording's time, not the machine's: replaying a bag twice gives the
// same store.
func New(cfg *config.Config, opts Options) (*Replay, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Replay{log: opts.Logger}
	p, err := pipeline.New(cfg, pipeline.Options{Logger: opts.Logger, Version: opts.Version, StoreNow: r.now,
		ShipOnlyToBroker: true})
	if err != nil {
		return nil, err
	}
	r.pipe, r.cfg = p, p.Config()
	return r, nil
}

// now is the recording's time (zero before the first message).
func (r *Replay) now() time.Time {
	if r.rp == nil {
		return time.Time{}
	}
	now, _ := r.rp.Now()
	return now
}

// Pipeline is the replay's stages: what a caller that shows them reads
// (the status page's data, the trace checks' counts) once Run returned.
func (r *Replay) Pipeline() *pipeline.Pipeline { return r.pipe }

// Run replays bags through the pipeline of edged run, with no master,
// as fast as the machine allows (ROS1 .bag files and rosbag2 bags: a
// directory, an .mcap or a .db3 file; see recording.Open): capture
// (capture.Replay, the record time as the clock), rings, sheets, fsm and
// the episode store, and the uplink when uplink.broker is set. Messages
// of all bags are merged in time order. It is deterministic: every FSM
// message is processed, and its episode events handled, before the next
// message, and the sheet builders advance on the recording's clock, so
// the sheets are those a live edged makes of `rosbag play --clock`.
// Nothing in the store comes from the wall clock: the fsm stage's clock
// between events is the recording's (Runner.AdvanceFSM), manifests are
// created at the recording's time and episode ids are robot and start
// time, so replaying a bag twice gives byte-for-byte identical stores
// (all but the lock file, which holds the process id). Progress, when
// not nil, gets a one-line progress bar.
//
// ros.version does not apply: it picks the middleware of a live edged
// run, while each bag's own format says how to read it (a .bag file is
// ROS1; a directory with metadata.yaml, an .mcap or a .db3 is ROS 2),
// so a config written for a ROS 2 robot replays its ROS1 bags and the
// reverse, and ROS1 and ROS 2 bags merge in one replay. A bag of the
// other version than ros.version says is noted in the log. Incident
// clips are written in the recordings' ROS version (clipsROS2).
func (r *Replay) Run(ctx context.Context, bags []string, progress io.Writer) (Summary, error) {
	sum := Summary{Out: r.cfg.DataDir, MaxGap: r.cfg.Replay.MaxGap.D()}
	if !r.running.CompareAndSwap(false, true) {
		return sum, errors.New("replay: already running")
	}
	readers, err := recording.OpenAll(ctx, bags)
	if err != nil {
		return sum, fmt.Errorf("replay: %w", err)
	}
	r.noteVersions(readers)
	r.pipe.SetROS2(clipsROS2(readers, r.cfg.ROS.Version))
	defer recording.CloseAll(readers)
	defer r.pipe.Close() // the rings and the uplink, then the store
	if err := r.start(ctx, readers); err != nil {
		return sum, err
	}
	for _, p := range recording.Problems(readers) {
		r.damaged(&sum, p)
	}
	start := time.Now()
	runner := r.pipe.NewRunner()
	sum.Messages, err = r.replayMessages(ctx, readers, runner, newProgress(progress, readers), &sum)
	err = r.finish(ctx, runner, err)
	sum.Wall = time.Since(start)
	r.summarize(&sum, readers)
	if err == nil && len(sum.Damage) > 0 {
		err = fmt.Errorf("replay: %w: %d problems in the bags (listed above); the output holds what could be read (--keep-going accepts it)",
			ErrDamagedInput, len(sum.Damage))
	}
	return sum, err
}

// start opens the sinks and the stages, sinks before the source: the
// output directory, the store and the uplink, the rings of the
// recordings' topics, the fsm stage, then the replay capture.
func (r *Replay) start(ctx context.Context, readers []recording.Recording) error {
	if err := os.MkdirAll(r.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("replay output: %w", err)
	}
	p := r.pipe
	if err := p.Open(); err != nil {
		return err
	}
	cams, joints := r.bagTopics(readers)
	t, err := p.NewTopology(&r.cfg, nil, cams, joints)
	if err != nil {
		return err
	}
	p.UseTopology(t)
	// The fsm stage runs as live, but the replay waits for it after each
	// of its messages (Runner.FlushFSM), so episodes begin and end in bag
	// order.
	if err := p.StartFSM(ctx, nil); err != nil {
		return err
	}
	ccfg, sinks := p.CaptureSetup(t)
	if sinks.States != nil {
		sinks.States = states{p} // the fsm stage is replaced at a gap
	}
	r.rp, err = capture.NewReplay(ccfg, sinks, p.CaptureOptions())
	return err
}

// finish ends the replay after its last message (or the error that
// stopped it, which it returns, else the first of its own): the fsm
// stage first, so that the episode still open at the end of the
// recording ends (interrupted) at the recording's last time and its
// events reach the sheets, then the sheets.
func (r *Replay) finish(ctx context.Context, runner *pipeline.Runner, err error) error {
	now, ok := r.rp.Now()
	if ok && err == nil {
		err = runner.AdvanceFSM(ctx, now)
	}
	if cerr := r.pipe.CloseFSM(); err == nil {
		err = cerr
	}
	runner.Stop(now, ok)
	return err
}

// states hands capture's FSM events to the pipeline's current fsm
// stage (endAtGap replaces it).
type states struct{ p *pipeline.Pipeline }

func (s states) PutState(ev capture.StateEvent) { s.p.Machine().PutState(ev) }

// noteVersions logs each bag whose ROS version is not ros.version's
// (which applies to edged run only; see Run).
func (r *Replay) noteVersions(readers []recording.Recording) {
	v := r.cfg.ROS.Version
	if v == 0 {
		return
	}
	for _, rec := range readers {
		if bv := rec.ROSVersion(); bv != v {
			r.log.Info("replay: the bag is read as the ROS version its format says; ros.version applies to edged run only",
				"bag", rec.Info().Path, "bag_version", bv, "ros.version", v)
		}
	}
}

// clipsROS2 says whether the recordings are a ROS 2 robot's, so that
// its incident clips carry the cameras and joints as ROS 2 messages
// (ros2msg, cdr) as edged run's under ros.version 2 would: yes when every
// recording is ROS 2, no when every one is ROS1 (a clip replayed is
// ROS1's), ros.version's when they mix.
func clipsROS2(readers []recording.Recording, version int) bool {
	var ros1, ros2 bool
	for _, rec := range readers {
		if rec.ROSVersion() == 2 {
			ros2 = true
		} else {
			ros1 = true
		}
	}
	if ros1 && ros2 {
		return version == 2
	}
	return ros2
}

// bagTopics are the configured cameras and joints; a role with none
// configured takes the matching topics of the bags as discovery allows
// (discovery.max_cameras and max_joints, as edged run: a bag's topics
// are input too).
func (r *Replay) bagTopics(readers []recording.Recording) (cams, joints []string) {
	var tt []capture.TopicType
	for _, rec := range readers {
		for _, c := range rec.Connections() {
			tt = append(tt, capture.TopicType{Topic: c.Topic, Type: c.Type}) // ROS 2 names too
		}
	}
	cams, joints = pipeline.ConfiguredTopics(&r.cfg)
	return r.pipe.Discovered(&r.cfg, &pipeline.Topology{}, cams, joints, tt)
}
