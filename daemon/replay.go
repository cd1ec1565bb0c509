package daemon

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/capture"
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
}

// Replay runs the pipeline of edged run over ROS1 bags, with no master,
// as fast as the machine allows: capture (capture.Replay, the record time
// as the clock), rings, sheets, fsm and the episode store, and the uplink
// when uplink.broker is set. Messages of all bags are merged in time
// order. It is deterministic: every FSM message is processed, and its
// episode events handled, before the next message, and the sheet
// builders advance on the recording's clock, so the sheets are those a
// live edged makes of `rosbag play --clock`. Progress, when not nil, gets
// a one-line progress bar.
func (d *Daemon) Replay(ctx context.Context, bags []string, progress io.Writer) (ReplaySummary, error) {
	var sum ReplaySummary
	if !d.running.CompareAndSwap(false, true) {
		return sum, errors.New("daemon: already running")
	}
	readers, err := openBags(bags)
	if err != nil {
		return sum, err
	}
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	if err := os.MkdirAll(d.cfg.DataDir, 0o755); err != nil {
		return sum, fmt.Errorf("replay output: %w", err)
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
	if err := d.startFSM(ctx); err != nil {
		return sum, err
	}
	fsmTopics := map[string]bool{}
	if d.machine != nil {
		topics, _ := d.fsmCfg.Topics()
		for _, t := range topics {
			fsmTopics[t] = true
		}
	}
	rp, err := d.newReplayCapture(t)
	if err != nil {
		d.closeMachine()
		return sum, err
	}
	start := time.Now()
	runner := d.newSheetRunner(d.store.Dir(), d.machine == nil)
	sum.Messages, err = d.replayMessages(ctx, readers, rp, runner, fsmTopics, newProgress(progress, readers))
	// Close the fsm first: the episode still open at the end of the
	// recording ends (interrupted) and its events reach the runner.
	if cerr := d.closeMachine(); err == nil {
		err = cerr
	}
	runner.stop(rp.Now())
	t.closeRings()
	sum.Wall = time.Since(start)
	sum.Episodes, sum.Segments, sum.Sheets = d.stats.episodes.Load(), d.stats.segments.Load(), d.stats.sheets.Load()
	sum.Topics = rp.Stats()
	for _, r := range readers {
		sum.BagTime += r.Info().Duration()
	}
	return sum, err
}

// bagTopics are the configured cameras and joints; a role with none
// configured takes every matching topic of the bags.
func (d *Daemon) bagTopics(readers []*bag.Reader) (cams, joints []string) {
	var tt []capture.TopicType
	for _, r := range readers {
		for _, c := range r.Connections() {
			tt = append(tt, capture.TopicType{Topic: c.Topic, Type: c.Type})
		}
	}
	cams, joints = configuredTopics(&d.cfg)
	return withDiscovered(cams, joints, tt)
}

func (d *Daemon) newReplayCapture(t *topology) (*capture.Replay, error) {
	ccfg, sinks := d.captureSetup(t)
	return capture.NewReplay(ccfg, sinks, capture.Options{Logger: d.log})
}

// replayMessages feeds every message of the bags, in time order, to the
// replay capture, drives the sheet runner on the recording's clock, and
// waits for the fsm after each of its messages.
func (d *Daemon) replayMessages(ctx context.Context, readers []*bag.Reader, rp *capture.Replay, runner *sheetRunner,
	fsmTopics map[string]bool, prog *progress) (uint64, error) {
	merged, err := mergeBags(readers, rp.Topics())
	if err != nil {
		return 0, err
	}
	defer merged.close()
	step := runner.recipe.Interval / 5
	var next time.Time
	var n uint64
	for merged.next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m := merged.message()
		if next.IsZero() {
			next = m.Time
		}
		// The runner sees the clock reach each step before the messages
		// after it, as the live loop's ticker would.
		for !m.Time.Before(next) {
			runner.tick(next)
			next = next.Add(step)
		}
		if err := rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time); err != nil {
			return n, err
		}
		n++
		if fsmTopics[m.Conn.Topic] {
			if err := d.machine.Flush(ctx); err != nil {
				return n, err
			}
			runner.drain()
		}
		prog.update(m.Time, n)
	}
	prog.done(n)
	if now, ok := rp.Now(); ok {
		runner.tick(now)
	}
	return n, merged.err()
}

func openBags(paths []string) ([]*bag.Reader, error) {
	if len(paths) == 0 {
		return nil, errors.New("replay: no bag given")
	}
	var readers []*bag.Reader
	for _, p := range paths {
		r, err := bag.Open(p)
		if err != nil {
			for _, o := range readers {
				o.Close()
			}
			return nil, fmt.Errorf("replay: %w", err)
		}
		readers = append(readers, r)
	}
	return readers, nil
}

// bagMerge walks several bags' messages in one time order (a heap of
// their iterators; ties keep the order the bags were given).
type bagMerge struct {
	its  []*bag.Iterator
	h    mergeHeap
	cur  bag.Message
	prev int // iterator of cur, advanced on the next call to next
	e    error
}

func mergeBags(readers []*bag.Reader, topics []string) (*bagMerge, error) {
	m := &bagMerge{prev: -1}
	for i, r := range readers {
		it := r.Messages(topics...)
		m.its = append(m.its, it)
		if it.Next() {
			m.h = append(m.h, mergeItem{i, it.Message().Time})
		} else if err := it.Err(); err != nil {
			m.close()
			return nil, fmt.Errorf("replay %s: %w", r.Info().Path, err)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (m *bagMerge) next() bool {
	if m.prev >= 0 {
		it := m.its[m.prev]
		if it.Next() {
			heap.Push(&m.h, mergeItem{m.prev, it.Message().Time})
		} else if err := it.Err(); err != nil {
			m.e = err
			return false
		}
	}
	if m.h.Len() == 0 {
		return false
	}
	top := heap.Pop(&m.h).(mergeItem)
	m.prev, m.cur = top.it, m.its[top.it].Message()
	return true
}

func (m *bagMerge) message() bag.Message { return m.cur }
func (m *bagMerge) err() error           { return m.e }
func (m *bagMerge) close() {
	for _, it := range m.its {
		it.Close()
	}
}

type mergeItem struct {
	it int
	t  time.Time
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	return h[i].it < h[j].it
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
