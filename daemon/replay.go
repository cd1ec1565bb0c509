package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/edged-robotics/edged/bag/recording"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
)

// ReplaySummary is what a replay did.
type ReplaySummary struct {
	Messages uint64        // messages handled
	BagTime  time.Duration // recording time covered
	Wall     time.Duration // time the replay took
	Episodes uint64
	Segments uint64
	Sheets   uint64
	Topics   []capture.TopicStats
	// Unused counts the messages of the replayed topics that could not
	// be used (malformed, of a type or format their role cannot use,
	// over a size cap, before the first /clock); each topic's are named
	// in Damage, or, for those before the first /clock (not damage),
	// logged as a warning.
	Unused uint64
	// Gaps are the stretches of the recording longer than
	// replay.max_gap without a message: each ended the open episode at
	// its start, and the replay went on at its end. Each is also logged
	// as a warning.
	Gaps []Gap
	// Damage lists what of the bags could not be read (a damaged or cut
	// short file, an MCAP data section that fails its CRC), each naming
	// the bag and the byte offset; the rest was replayed. Each is also
	// logged as a warning.
	Damage []string
}

// Gap is a stretch of a recording without a message, from the last
// message before it to the first after it.
type Gap struct{ From, To time.Time }

func (g Gap) String() string {
	return fmt.Sprintf("no message for %s, from %s to %s", g.To.Sub(g.From), g.From.UTC().Format(time.RFC3339Nano), g.To.UTC().Format(time.RFC3339Nano))
}

// ErrDamagedInput is matched (errors.Is) by the error Replay returns
// when a bag was damaged but everything readable was replayed: the
// output is complete for what could be read (see ReplaySummary.Damage).
// `edged replay` exits non-zero on it unless --keep-going.
var ErrDamagedInput = errors.New("damaged input")

// Replay runs the pipeline of edged run over bags, with no master,
// as fast as the machine allows (ROS1 .bag files and rosbag2 bags: a
// directory, an .mcap or a .db3 file; see recording.Open): capture (capture.Replay, the record time
// as the clock), rings, sheets, fsm and the episode store, and the uplink
// when uplink.broker is set. Messages of all bags are merged in time
// order. It is deterministic: every FSM message is processed, and its
// episode events handled, before the next message, and the sheet
// builders advance on the recording's clock, so the sheets are those a
// live edged makes of `rosbag play --clock`. Nothing in the store comes
// from the wall clock: the fsm stage's clock between events is the
// recording's (Advance), manifests are created at the recording's time
// and episode ids are robot and start time, so replaying a bag twice
// gives byte-for-byte identical stores (all but the lock file, which
// holds the process id). Progress, when not nil, gets
// a one-line progress bar.
//
// ros.version does not apply: it picks the middleware of a live edged
// run, while each bag's own format says how to read it (a .bag file is
// ROS1; a directory with metadata.yaml, an .mcap or a .db3 is ROS 2),
// so a config written for a ROS 2 robot replays its ROS1 bags and the
// reverse, and ROS1 and ROS 2 bags merge in one replay. A bag of the
// other version than ros.version says is noted in the log.
func (d *Daemon) Replay(ctx context.Context, bags []string, progress io.Writer) (ReplaySummary, error) {
	var sum ReplaySummary
	if !d.running.CompareAndSwap(false, true) {
		return sum, errors.New("daemon: already running")
	}
	readers, err := recording.OpenAll(ctx, bags)
	if err != nil {
		return sum, fmt.Errorf("replay: %w", err)
	}
	d.noteVersions(readers)
	defer recording.CloseAll(readers)
	if err := os.MkdirAll(d.cfg.DataDir, 0o755); err != nil {
		return sum, fmt.Errorf("replay output: %w", err)
	}
	// A replayed episode is created at the recording's time, not the
	// machine's: replaying a bag twice gives the same store.
	var rp *capture.Replay
	d.storeNow = func() time.Time {
		if rp == nil { // not before the first message
			return time.Time{}
		}
		now, _ := rp.Now()
		return now
	}
	if err := d.openStore(); err != nil {
		return sum, err
	}
	defer d.store.Close()
	d.out = noShipper{}
	if d.cfg.Uplink.Broker != "" {
		if err := d.openUplink(); err != nil {
			return sum, err
		}
		defer d.closeUplink()
	}
	cams, joints := d.bagTopics(readers)
	t, err := d.newTopology(&d.cfg, &topology{}, cams, joints)
	if err != nil {
		return sum, err
	}
	d.topo.Store(t)
	d.router.use(t.cams)

	// The fsm stage runs as live, but replay waits for it after each of
	// its messages (Flush), so episodes begin and end in bag order.
	if err := d.startFSM(ctx, nil); err != nil {
		return sum, err
	}
	fsmTopics := map[string]bool{}
	if d.machine != nil {
		topics, _ := d.fsmCfg.Topics()
		for _, t := range topics {
			fsmTopics[t] = true
		}
	}
	rp, err = d.newReplayCapture(t)
	if err != nil {
		d.closeMachine()
		return sum, err
	}
	for _, p := range recording.Problems(readers) {
		d.damaged(&sum, p)
	}
	start := time.Now()
	runner := d.newSheetRunner(d.store.Dir(), d.machine == nil)
	sum.Messages, err = d.replayMessages(ctx, readers, rp, runner, fsmTopics, newProgress(progress, readers), &sum)
	// Close the fsm first: the episode still open at the end of the
	// recording ends (interrupted) at the recording's last time, and its
	// events reach the runner.
	if now, ok := rp.Now(); ok && err == nil {
		err = d.advanceMachine(ctx, now, runner)
	}
	if cerr := d.closeMachine(); err == nil {
		err = cerr
	}
	runner.stop(rp.Now())
	t.closeRings()
	sum.Wall = time.Since(start)
	sum.Episodes, sum.Segments, sum.Sheets = d.stats.episodes.Load(), d.stats.segments.Load(), d.stats.sheets.Load()
	sum.Topics = rp.Stats()
	d.reportUnused(&sum)
	for _, r := range readers {
		sum.BagTime += r.Info().Duration()
	}
	if err == nil && len(sum.Damage) > 0 {
		err = fmt.Errorf("replay: %w: %d problems in the bags (listed above); the output holds what could be read (--keep-going accepts it)",
			ErrDamagedInput, len(sum.Damage))
	}
	return sum, err
}

// noteVersions logs each bag whose ROS version is not ros.version's
// (which applies to edged run only; see Replay).
func (d *Daemon) noteVersions(readers []recording.Recording) {
	v := d.cfg.ROS.Version
	if v == 0 {
		return
	}
	for _, r := range readers {
		if bv := r.ROSVersion(); bv != v {
			d.log.Info("replay: the bag is read as the ROS version its format says; ros.version applies to edged run only",
				"bag", r.Info().Path, "bag_version", bv, "ros.version", v)
		}
	}
}

// reportUnused counts and reports, per topic, the messages capture
// could not use: damage (ErrDamagedInput) but for those dropped before
// the first /clock, which a recording that starts its clock late has.
func (d *Daemon) reportUnused(sum *ReplaySummary) {
	for _, ts := range sum.Topics {
		var parts []string
		var unused uint64
		add := func(n uint64, what string) {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
				unused += n
			}
		}
		add(ts.DecodeErrors, "malformed")
		add(ts.UnknownType, "of a type or format the role cannot use")
		add(ts.OversizeDrops, "over the role's size cap (ros.max_message, ros.max_state_message)")
		add(ts.TooManyJoints, "with more joints than the cap")
		add(ts.SubscriptionDrops, "dropped by a full queue")
		add(ts.Errors, "in failed connections")
		if len(parts) > 0 {
			sum.Unused += unused
			d.damaged(sum, fmt.Sprintf("topic %s (%s, %s): %d of its %d messages could not be used: %s",
				ts.Topic, ts.Role, ts.Type, unused, ts.Messages, strings.Join(parts, ", ")))
		}
		if ts.NoClockDrops > 0 {
			sum.Unused += ts.NoClockDrops
			d.log.Warn("replay: messages before the first /clock message were not used", "topic", ts.Topic, "messages", ts.NoClockDrops)
		}
	}
}

func (d *Daemon) damaged(sum *ReplaySummary, what string) {
	sum.Damage = append(sum.Damage, what)
	d.log.Warn("replay: damaged input", "problem", what)
}

// bagTopics are the configured cameras and joints; a role with none
// configured takes the matching topics of the bags as discovery allows
// (discovery.max_cameras and max_joints, as edged run: a bag's topics
// are input too).
func (d *Daemon) bagTopics(readers []recording.Recording) (cams, joints []string) {
	var tt []capture.TopicType
	for _, r := range readers {
		for _, c := range r.Connections() {
			tt = append(tt, capture.TopicType{Topic: c.Topic, Type: c.Type}) // ROS 2 names too
		}
	}
	cams, joints = configuredTopics(&d.cfg)
	return d.discovered(&d.cfg, &topology{}, cams, joints, tt)
}

func (d *Daemon) newReplayCapture(t *topology) (*capture.Replay, error) {
	ccfg, sinks := d.captureSetup(t)
	if sinks.States != nil {
		sinks.States = replayStates{d} // the machine is replaced at a gap
	}
	return capture.NewReplay(ccfg, sinks, capture.Options{Logger: d.log, ROS2Types: d.ros2Types})
}

// replayMessages feeds every message of the bags, in time order, to the
// replay capture, drives the sheet runner on the recording's clock, and
// waits for the fsm after each of its messages. A gap longer than
// replay.max_gap is not walked through (see endAtGap).
func (d *Daemon) replayMessages(ctx context.Context, readers []recording.Recording, rp *capture.Replay, runner *sheetRunner,
	fsmTopics map[string]bool, prog *progress, sum *ReplaySummary) (uint64, error) {
	merged := recording.Merge(readers, rp.Topics(), func(e error) {
		if ctx.Err() == nil { // an interrupted query is the stop, not damage
			d.damaged(sum, e.Error())
		}
	})
	defer merged.Close()
	step := runner.recipe.Interval / 5
	maxGap := d.cfg.Replay.MaxGap.D()
	var next, prev time.Time
	var n uint64
	for merged.Next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m := merged.Message()
		if n > 0 && m.Time.Sub(prev) > maxGap {
			if err := d.endAtGap(ctx, Gap{From: prev, To: m.Time}, rp, runner, sum); err != nil {
				return n, err
			}
			next = time.Time{}
		}
		if next.IsZero() {
			next = m.Time
		}
		// The runner sees the clock reach each step before the messages
		// after it, as the live loop's ticker would.
		for !m.Time.Before(next) {
			if err := ctx.Err(); err != nil { // a long stretch within max_gap
				return n, err
			}
			if err := d.advanceMachine(ctx, next, runner); err != nil {
				return n, err
			}
			runner.tick(next)
			next = next.Add(step)
		}
		if err := rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time); err != nil {
			return n, err
		}
		n++
		prev = m.Time
		if fsmTopics[m.Conn.Topic] {
			if err := d.machine.Flush(ctx); err != nil {
				return n, err
			}
			runner.drain()
		}
		prog.update(m.Time, n)
	}
	if err := ctx.Err(); err != nil { // the bags' iterators stopped on it
		return n, err
	}
	prog.done(n)
	if now, ok := rp.Now(); ok {
		runner.tick(now)
	}
	return n, nil
}

// endAtGap ends the recording before a gap as the end of the bags would
// (the open episode or session ends, interrupted, at the capture clock)
// and starts the fsm stage over for what follows, as if it were another
// recording: walking through the gap would cut an episode every
// episode.max_duration, without end for a far-future stamp.
func (d *Daemon) endAtGap(ctx context.Context, g Gap, rp *capture.Replay, runner *sheetRunner, sum *ReplaySummary) error {
	sum.Gaps = append(sum.Gaps, g)
	d.log.Warn("replay: a gap in the recording longer than replay.max_gap; the open episode ends before it and the replay goes on after it",
		"gap", g.String(), "replay.max_gap", d.cfg.Replay.MaxGap.D())
	now, ok := rp.Now()
	if !ok {
		now = g.From
	}
	if d.machine != nil {
		if err := d.advanceMachine(ctx, now, runner); err != nil {
			return err
		}
		if err := d.closeMachine(); err != nil {
			return err
		}
		runner.drain()
		if err := d.startFSM(ctx, nil); err != nil {
			return err
		}
	}
	if runner.session {
		runner.closeSession(now, true, episode.EndShutdown)
	}
	return nil
}

// replayStates hands capture's FSM events to the daemon's current
// machine (endAtGap replaces it).
type replayStates struct{ d *Daemon }

func (s replayStates) PutState(ev capture.StateEvent) { s.d.machine.PutState(ev) }

// advanceMachine moves the fsm stage's clock to now, the recording's
// time (it has no clock of its own in a replay), and hands the runner
// what that ended (an episode cut at max_duration).
func (d *Daemon) advanceMachine(ctx context.Context, now time.Time, runner *sheetRunner) error {
	if d.machine == nil {
		return nil
	}
	if err := d.machine.Advance(ctx, now); err != nil {
		return err
	}
	runner.drain()
	return nil
}
