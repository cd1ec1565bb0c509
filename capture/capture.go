package capture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// Options are the non-config dependencies of a Capture.
type Options struct {
	// Now is the wall clock; default time.Now. Tests set it.
	Now func() time.Time
	// Logger; default slog.Default().
	Logger *slog.Logger
	// ROS2Types resolves the ROS 2 message types (Encoding cdr) whose
	// definitions a publisher or bag does not carry: the bundled ones
	// plus a user directory (cdr.Registry.AddDir). nil: the bundled ones.
	// Read-only once handed over.
	ROS2Types *cdr.Registry
}

// Capture subscribes the configured topics and turns every message into
// one event for the sinks. Create it with New, then Start; Close stops it.
type Capture struct {
	pipeline // the per-message conversion, shared with Replay
	node     Node
	log      *slog.Logger

	tmu    sync.RWMutex // guards topics (Start adds /clock)
	topics []*topic

	mu      sync.Mutex // guards started, closed, cancel
	started bool
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	simParam chan bool // /use_sim_time values from the node's watch (SimTimeAuto)
}

// New checks cfg (Validate) and the sinks; it does no I/O.
func New(cfg Config, node Node, sinks Sinks, opts Options) (*Capture, error) {
	if err := checkSetup(cfg, sinks); err != nil {
		return nil, err
	}
	if node == nil {
		return nil, errors.New("capture: nil Node")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Capture{pipeline: pipeline{cfg: cfg.withDefaults(), sinks: sinks, now: opts.Now, ros2Types: opts.ROS2Types}, node: node, log: opts.Logger,
		simParam: make(chan bool, 1)}
	c.topics = cfg.topics()
	return c, nil
}

// Start decides the clock (reading /use_sim_time under SimTimeAuto),
// subscribes /clock first when on sim time, then every configured topic,
// and starts one goroutine per topic. If a subscription fails, what was
// started is stopped and the error returned. Start may be called once.
func (c *Capture) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started || c.closed {
		return errors.New("capture: Start called twice or after Close")
	}
	c.started = true
	sim, err := c.useSimTime(ctx)
	if err != nil {
		return err
	}
	c.sim.Store(sim)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	c.tmu.Lock()
	if sim {
		c.topics = append([]*topic{{name: c.cfg.ClockTopic, role: RoleClock}}, c.topics...)
	}
	topics := c.topics
	c.tmu.Unlock()
	for _, t := range topics {
		if err := c.subscribe(ctx, runCtx, t); err != nil {
			c.stopLocked()
			return err
		}
	}
	if _, ok := c.node.(Params); ok && c.cfg.SimTime == SimTimeAuto {
		c.wg.Add(1)
		go c.watchSimTime(runCtx, sim)
	}
	c.log.Info("capture started", "topics", len(topics), "sim_time", sim)
	return nil
}

// subscribe subscribes topic t and starts its goroutine, unless the
// node's readers hand each message to handleDirect themselves.
func (c *Capture) subscribe(ctx, runCtx context.Context, t *topic) error {
	o := c.cfg.subscribeOptions(t)
	o.Handle = func(m *ros.Message) { c.handleDirect(t, m) }
	sub, err := c.node.Subscribe(ctx, o)
	if err != nil {
		return fmt.Errorf("capture: subscribe %s (%s): %w", t.name, t.role, err)
	}
	t.setSub(sub)
	if d, ok := sub.(Direct); ok && d.HandlesDirectly() {
		return nil // the node's readers call handleDirect: no goroutine, no hand-off
	}
	c.wg.Add(1)
	go c.run(runCtx, t, sub)
	return nil
}

// useSimTime decides the clock at Start. Under SimTimeAuto it watches
// /use_sim_time when the node has parameters (Params), so that a change,
// or a master that comes up after edged with it set, switches the clock
// later (watchSimTime); a node without them runs on the wall clock.
func (c *Capture) useSimTime(ctx context.Context) (bool, error) {
	switch c.cfg.SimTime {
	case SimTimeOn:
		return true, nil
	case SimTimeOff:
		return false, nil
	}
	w, ok := c.node.(Params)
	if !ok {
		return false, nil
	}
	v, err := w.WatchParam(ctx, "/use_sim_time", c.onSimParam)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("capture: read /use_sim_time: %w", err)
		}
		// the master may come up later; the ros node registers then
		c.log.Warn("cannot read /use_sim_time, using the wall clock", "err", err)
		return false, nil
	}
	if v == nil {
		c.log.Debug("no /use_sim_time, using the wall clock") // unset: the normal case
		return false, nil
	}
	return isTrue(v), nil
}

// isTrue reads a /use_sim_time value; rosparam may store it as a bool,
// an int or a string.
func isTrue(v any) bool {
	if b, ok := v.(bool); ok {
		return b
	}
	switch v {
	case 1, int32(1), int64(1), "true", "True", "1":
		return true
	}
	return false
}

// onSimParam is the node's callback for /use_sim_time (on the node's
// goroutines): it hands the newest value to watchSimTime, never
// blocking; an older value not yet taken is replaced.
func (c *Capture) onSimParam(v any) {
	b := isTrue(v)
	for {
		select {
		case c.simParam <- b:
			return
		default:
		}
		select {
		case <-c.simParam:
		default:
		}
	}
}

// watchSimTime switches the capture clock when /use_sim_time changes
// (also when the master comes up after Start with it set): to sim time
// it subscribes the clock topic first, if not yet done.
func (c *Capture) watchSimTime(ctx context.Context, sim bool) {
	defer c.wg.Done()
	clockTopic := sim
	for {
		var want bool
		select {
		case <-ctx.Done():
			return
		case want = <-c.simParam:
		}
		if want == c.sim.Load() {
			continue
		}
		if want && !clockTopic {
			t := &topic{name: c.cfg.ClockTopic, role: RoleClock}
			if err := c.subscribe(ctx, ctx, t); err != nil {
				c.log.Error("capture: cannot switch to sim time; staying on the wall clock", "err", err)
				continue
			}
			c.tmu.Lock()
			c.topics = append([]*topic{t}, c.topics...)
			c.tmu.Unlock()
			clockTopic = true
		}
		c.sim.Store(want)
		c.log.Warn("capture: /use_sim_time changed; switched the capture clock", "sim_time", want)
	}
}

// Close stops every topic goroutine, waits for them, closes the
// subscriptions and releases messages still queued. Safe to call twice
// and before Start.
func (c *Capture) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.stopLocked()
}

func (c *Capture) stopLocked() error {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
	var errs []error
	c.tmu.RLock()
	defer c.tmu.RUnlock()
	for _, t := range c.topics {
		sub := t.getSub()
		if sub == nil {
			continue
		}
		if err := sub.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", t.name, err))
		}
		c.drain(sub)
	}
	return errors.Join(errs...)
}

// drain releases messages left in a closed subscription's queue.
func (c *Capture) drain(sub Subscription) {
	for {
		select {
		case m, ok := <-sub.Messages():
			if !ok || m == nil {
				return
			}
			c.release(m)
		default:
			return
		}
	}
}

// SimTime reports whether the capture clock is /clock (valid after Start).
func (c *Capture) SimTime() bool {
	return c.sim.Load()
}

// Now returns the capture clock: the latest /clock under sim time (ok is
// false until the first /clock message), else the wall clock.
func (c *Capture) Now() (now time.Time, ok bool) {
	if c.sim.Load() {
		return c.clock.now()
	}
	return c.now(), true
}

// Stats returns a snapshot of every topic's counters, cameras first.
func (c *Capture) Stats() []TopicStats {
	c.tmu.RLock()
	defer c.tmu.RUnlock()
	out := make([]TopicStats, 0, len(c.topics))
	for _, t := range c.topics {
		out = append(out, t.stats())
	}
	slices.SortStableFunc(out, func(a, b TopicStats) int { return int(a.Role) - int(b.Role) })
	return out
}
