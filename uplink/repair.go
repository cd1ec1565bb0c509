package uplink

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Repair: a broker may acknowledge a message and then not deliver it (a
// restart without persistence while no receiver is subscribed, an ACL
// that refuses the topic, a receiver's session queue that overflowed, a
// failover). So the robot keeps every message of an episode (the
// outbox's groups, named by wire.Piece) until the receiver acknowledges
// the episode complete, and:
//   - a receiver that holds the end manifest but lacks pieces asks for
//     them (wire.Repair); the robot queues those again, unchanged (same
//     ids, so a receiver that got one meanwhile drops it as a
//     duplicate);
//   - an ended episode all of whose messages the broker acknowledged,
//     and that the receiver has not acknowledged ResendAfter later, has
//     its end manifest sent again (so a receiver that lost it, or
//     everything, learns what to ask for, and one that holds the
//     episode complete acknowledges it again), ResendAfter x 2^n apart
//     (at most MaxResendInterval), MaxResends times.

// RepairStats are the repair counters for /metrics.
type RepairStats struct {
	Requests    uint64 // repair requests received
	Resent      uint64 // pieces queued again because the receiver asked
	Waiting     uint64 // pieces asked for while still on their way (queued, in flight)
	Unavailable uint64 // pieces asked for that the robot does not hold (evicted, never made)
	EndResends  uint64 // end manifests sent again after ResendAfter
	Throttled   uint64 // repair requests ignored: one for the episode was answered under minAnswerGap before
	Awaiting    int    // ended episodes waiting for the receiver's acknowledgement
	// OldestAwaiting is when the oldest of them began to wait (zero: none).
	OldestAwaiting time.Time
}

// minAnswerGap bounds how often the robot answers repair requests for
// one episode: a sink asks 30 s after an end and then less often, so
// more is a sink gone wrong (or hostile) making the robot send an
// episode again and again.
const minAnswerGap = 2 * time.Second

// Awaiting is an ended episode (its end manifest reached the broker)
// that the receiver has not acknowledged complete.
type Awaiting struct {
	Episode string `json:"episode"`
	// Since: when this run first found its end acknowledged by the broker.
	Since     time.Time `json:"since"`
	Held      int       `json:"held"` // messages kept for the receiver
	HeldBytes int64     `json:"held_bytes"`
	Queued    int       `json:"queued"`   // messages still to publish
	Resends   int       `json:"resends"`  // times its end manifest was sent again
	Requests  int       `json:"requests"` // repair requests received
	Asked     time.Time `json:"asked,omitzero"`
	// Lacks: the pieces the receiver said it lacks, last time (More: and
	// more besides); Unavailable: those of them the robot no longer holds.
	Lacks       []string `json:"lacks,omitempty"`
	More        bool     `json:"more,omitempty"`
	Unavailable []string `json:"unavailable,omitempty"`
}

// repairer owns the uplink's view of episodes awaiting acknowledgement:
// a goroutine (started by startRepairer, stopped by close) sends ended
// episodes' end manifests again; request and uploaded are called from
// the acknowledgement goroutine.
type repairer struct {
	cfg      Config
	ob       *outbox.Outbox
	log      *slog.Logger
	onRepair func(episodeID string, lacks []string, more bool)
	cancel   context.CancelFunc
	done     chan struct{}

	mu       sync.Mutex
	eps      map[string]*Awaiting
	answered map[string]time.Time // episode -> when a repair request for it was last answered
	counts   RepairStats
}

var endName = wire.EndPiece.String()

func startRepairer(cfg Config, ob *outbox.Outbox, onRepair func(string, []string, bool), log *slog.Logger) *repairer {
	ctx, cancel := context.WithCancel(context.Background())
	r := &repairer{cfg: cfg, ob: ob, log: log, onRepair: onRepair, cancel: cancel, done: make(chan struct{}),
		eps: map[string]*Awaiting{}, answered: map[string]time.Time{}}
	go r.run(ctx)
	return r
}

func (r *repairer) close() {
	r.cancel()
	<-r.done
}

func (r *repairer) run(ctx context.Context) {
	defer close(r.done)
	every := min(time.Second, r.cfg.ResendAfter/4)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		r.tick()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// interval is how long after the broker's last acknowledgement of an
// episode's messages its end manifest is sent again for the n-th time.
func (r *repairer) interval(n int) time.Duration {
	ceiling := max(MaxResendInterval, r.cfg.ResendAfter)
	d := r.cfg.ResendAfter
	for range n {
		if d >= ceiling/2 {
			return ceiling
		}
		d *= 2
	}
	return d
}

// tick follows the outbox's groups: an episode becomes awaiting once its
// end is acknowledged by the broker, and leaves when its group is gone
// (acknowledged, or evicted whole); one with nothing left to publish has
// its end sent again when its time came.
func (r *repairer) tick() {
	now := r.cfg.Now()
	groups := r.ob.Groups()
	live := make(map[string]bool, len(groups))
	for _, g := range groups {
		live[g.Group] = true
		r.mu.Lock()
		a := r.eps[g.Group]
		r.mu.Unlock()
		if a == nil {
			if !r.ob.Holds(g.Group, endName) {
				continue // not ended, or its end not acknowledged by the broker yet
			}
			a = &Awaiting{Episode: g.Group, Since: now}
		}
		r.mu.Lock()
		r.eps[g.Group] = a
		a.Held, a.HeldBytes, a.Queued = g.Held, g.HeldBytes, g.Queued
		due := g.Queued == 0 && a.Resends < MaxResends && now.Sub(g.Sent) >= r.interval(a.Resends)
		r.mu.Unlock()
		if due && len(r.ob.Resend(g.Group, []string{endName}).Queued) == 1 {
			r.mu.Lock()
			a.Resends++
			r.counts.EndResends++
			r.mu.Unlock()
			r.log.Warn("uplink: episode not acknowledged by the receiver; sending its end manifest again",
				"episode", g.Group, "since", a.Since.Format(time.RFC3339), "resend", a.Resends, "of", MaxResends)
		}
	}
	r.mu.Lock()
	for id := range r.eps {
		if !live[id] {
			delete(r.eps, id)
		}
	}
	for id, t := range r.answered {
		if now.Sub(t) >= minAnswerGap {
			delete(r.answered, id)
		}
	}
	r.counts.Awaiting, r.counts.OldestAwaiting = len(r.eps), time.Time{}
	for _, a := range r.eps {
		if r.counts.OldestAwaiting.IsZero() || a.Since.Before(r.counts.OldestAwaiting) {
			r.counts.OldestAwaiting = a.Since
		}
	}
	r.mu.Unlock()
}

// request answers a repair request: the pieces the receiver lacks that
// the robot holds are queued again.
func (r *repairer) request(req *wire.Repair) {
	now := r.cfg.Now()
	r.mu.Lock()
	r.counts.Requests++
	if last, ok := r.answered[req.Episode]; ok && now.Sub(last) < minAnswerGap {
		r.counts.Throttled++
		r.mu.Unlock()
		return
	}
	r.answered[req.Episode] = now
	r.mu.Unlock()
	res := r.ob.Resend(req.Episode, req.Missing)
	r.mu.Lock()
	r.counts.Resent += uint64(len(res.Queued))
	r.counts.Waiting += uint64(len(res.Waiting))
	r.counts.Unavailable += uint64(len(res.Missing))
	if a := r.eps[req.Episode]; a != nil {
		a.Requests++
		a.Asked = now
		a.Lacks, a.More, a.Unavailable = slices.Clone(req.Missing), req.More, res.Missing
	}
	r.mu.Unlock()
	r.log.Info("uplink: the receiver lacks pieces of an episode; sending them again", "episode", req.Episode,
		"lacks", len(req.Missing), "more", req.More, "resent", len(res.Queued), "on_their_way", len(res.Waiting))
	if len(res.Missing) > 0 {
		r.log.Warn("uplink: pieces the receiver lacks are not held any more (evicted under uplink.outbox_bytes, or never made); "+
			"the episode stays incomplete at the receiver", "episode", req.Episode, "pieces", strings.Join(head(res.Missing, 8), " "), "count", len(res.Missing))
	}
	if r.onRepair != nil {
		r.onRepair(req.Episode, req.Missing, req.More)
	}
}

// uploaded forgets an episode the receiver acknowledged complete.
func (r *repairer) uploaded(id string) {
	r.ob.Done(id)
	r.mu.Lock()
	delete(r.eps, id) // the counts follow at the next tick
	r.mu.Unlock()
}

func (r *repairer) stats() RepairStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts
}

// awaiting lists the episodes awaiting acknowledgement, oldest first.
func (r *repairer) awaiting() []Awaiting {
	r.mu.Lock()
	out := make([]Awaiting, 0, len(r.eps))
	for _, a := range r.eps {
		c := *a
		c.Lacks, c.Unavailable = slices.Clone(a.Lacks), slices.Clone(a.Unavailable)
		out = append(out, c)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Awaiting) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Episode, b.Episode)
	})
	return out
}

func head(s []string, n int) []string { return s[:min(len(s), n)] }
