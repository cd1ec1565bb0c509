package uplink

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/publish"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Options are the non-config dependencies.
type Options struct {
	Logger *slog.Logger
	// CheckEpisode says whether an episode id may be shipped and
	// acknowledged for this robot (the daemon passes the episode
	// store's rule, so the uplink does not need to know it). A message
	// of an episode it refuses is not queued; an acknowledgement of one
	// is dropped and counted in Stats.BadAcks. Default: any id the
	// wire format accepts.
	CheckEpisode func(episodeID string) error
	// OnUploaded, when set and a broker is configured, is called with
	// the id of each episode the receiver acknowledged holding complete
	// (from the acknowledgement goroutine; the daemon marks the episode
	// uploaded). It may be called again for the same episode. With it,
	// the uplink keeps what it shipped of an episode (Message.Keep)
	// until then, and answers the receiver's repair requests (repair.go).
	OnUploaded func(episodeID string)
	// OnRepair, when set, is called with each repair request of the
	// receiver: the episode and the pieces it lacks (wire.Piece names;
	// more: and others besides). The daemon records them for `edged
	// inspect`.
	OnRepair func(episodeID string, lacks []string, more bool)
}

// Stats for /metrics.
type Stats struct {
	Outbox    outbox.Stats
	Publisher publish.Stats // zero without a broker
	Enqueued  uint64
	Dropped   uint64 // sheets refused by a full outbox
	Errors    uint64 // enqueue failures (disk errors)
	Acks      uint64 // acknowledgements of complete episodes received
	BadAcks   uint64 // acknowledgements and repair requests dropped (not for this robot)
	Repair    RepairStats
}

// Uplink is the running uplink; create it with New.
type Uplink struct {
	cfg          Config
	log          *slog.Logger
	now          func() time.Time
	checkEpisode func(string) error
	ob           *outbox.Outbox
	pub          *publish.Publisher
	acks         *ackListener
	repair       *repairer // with acks: what the receiver has not acknowledged

	mu                        sync.Mutex
	closed                    bool
	enqueued, dropped, errors uint64
}

// New validates cfg, opens (and recovers) the outbox and, with a broker
// configured, starts publishing.
func New(cfg Config, opts Options) (*Uplink, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CheckEpisode == nil {
		opts.CheckEpisode = func(string) error { return nil } // wire.Envelope.Validate checks the form
	}
	ob, err := outbox.Open(outbox.Options{Dir: cfg.Dir, MaxBytes: cfg.OutboxBytes, Logger: opts.Logger, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	for _, r := range ob.Recovered() {
		opts.Logger.Warn("uplink: outbox recovered after a crash", "what", r)
	}
	u := &Uplink{cfg: cfg, log: opts.Logger, now: cfg.Now, checkEpisode: opts.CheckEpisode, ob: ob}
	if cfg.Broker != "" {
		u.pub, err = publish.Start(publish.Config{Broker: cfg.Broker, ClientID: cfg.ClientID, Auth: cfg.Auth,
			Prefix: cfg.TopicPrefix, Robot: cfg.Robot, MaxPayload: cfg.MaxPayload, Window: cfg.Window,
			Bandwidth: cfg.Bandwidth, Version: cfg.Version, MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff,
			StatusEvery: cfg.StatusEvery, Now: cfg.Now},
			ob, u.status, opts.Logger)
		if err != nil {
			ob.Close()
			return nil, err
		}
		if opts.OnUploaded != nil {
			u.repair = startRepairer(cfg, ob, opts.OnRepair, opts.Logger)
			onUploaded := func(id string) {
				u.repair.uploaded(id)
				opts.OnUploaded(id)
			}
			u.acks = startAcks(cfg, onUploaded, u.repair.request, opts.CheckEpisode, opts.Logger)
		}
	}
	return u, nil
}

// Robot is the robot id the uplink publishes as (robot_id).
func (u *Uplink) Robot() string { return u.cfg.Robot }

func (u *Uplink) status() wire.Status {
	s := u.ob.Stats()
	return wire.Status{Backlog: int64(s.Pending), BacklogBytes: s.PendingBytes, Evicted: int64(s.Evicted)}
}

// Message is one message to enqueue: a wire body (already encoded by
// the shipping stage) and the envelope fields that go with it.
type Message struct {
	Priority outbox.Priority
	Episode  string
	Kind     string // a wire.Kind*
	Seq      uint64
	// Camera is the camera directory of a sheet, labeling sheet or
	// snippet: with Kind and Seq it names the message's wire.Piece.
	Camera string
	// Keep: the receiver will acknowledge the episode (it ends with an
	// end manifest), so the message is kept after the broker's
	// acknowledgement until then, for the receiver to ask for again.
	// Kept only when acknowledgements are listened to (Options.OnUploaded).
	Keep bool
	Body []byte
}

// Piece is the name of m among its episode's messages.
func (m Message) Piece() wire.Piece {
	return wire.Piece{Kind: m.Kind, Camera: m.Camera, Index: int64(m.Seq)}
}

// Enqueue wraps each message in an envelope (a fresh id, this robot,
// created now) and puts them all in the outbox with one fsync. An
// evictable message refused by a full outbox is counted as dropped
// (outbox.ErrFull is returned, the others are queued).
func (u *Uplink) Enqueue(msgs ...Message) error {
	created := u.now().UnixNano()
	out := make([]outbox.Msg, len(msgs))
	for i, m := range msgs {
		e := wire.New(wire.NewID(), u.cfg.Robot, m.Episode, m.Kind, m.Seq, created, m.Body)
		if err := u.check(e); err != nil {
			return err
		}
		b, err := e.MarshalMsg(nil)
		if err != nil {
			return err
		}
		out[i] = outbox.Msg{Priority: m.Priority, Data: b}
		if m.Keep && u.repair != nil {
			name := m.Piece().String()
			if _, err := wire.ParsePiece(name); err != nil { // a name the receiver could not ask for
				return fmt.Errorf("uplink: %s not queued: %w", m.Kind, err)
			}
			out[i].Group, out[i].Name = m.Episode, name
		}
	}
	return u.put(out)
}

// check refuses an envelope the receiver would drop.
func (u *Uplink) check(e *wire.Envelope) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("uplink: %s: %w", e.Kind, err)
	}
	// The receiver takes only ids of this robot: refuse now
	// rather than ship a message it would drop.
	if err := u.checkEpisode(e.Episode); err != nil {
		return fmt.Errorf("uplink: %s not queued: %w", e.Kind, err)
	}
	return nil
}

func (u *Uplink) put(msgs []outbox.Msg) error {
	_, err := u.ob.Put(msgs...)
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case errors.Is(err, outbox.ErrFull):
		u.dropped++
		u.enqueued += uint64(len(msgs) - 1)
	case err != nil:
		u.errors++
	default:
		u.enqueued += uint64(len(msgs))
	}
	return err
}

// Stats returns a snapshot.
func (u *Uplink) Stats() Stats {
	s := Stats{Outbox: u.ob.Stats()}
	if u.pub != nil {
		s.Publisher = u.pub.Stats()
	}
	if u.acks != nil {
		s.Acks, s.BadAcks = u.acks.stats()
		s.Repair = u.repair.stats()
	}
	u.mu.Lock()
	s.Enqueued, s.Dropped, s.Errors = u.enqueued, u.dropped, u.errors
	u.mu.Unlock()
	return s
}

// Awaiting lists the ended episodes the receiver has not acknowledged
// complete, oldest first (none without acknowledgements: Options.OnUploaded).
func (u *Uplink) Awaiting() []Awaiting {
	if u.repair == nil {
		return nil
	}
	return u.repair.awaiting()
}

// Flush waits until the outbox is empty or the timeout passes, and
// reports whether it emptied (tests, and a graceful shutdown that wants
// to drain).
//
// The deadline is on Config.Now's clock, so a replay with a simulated
// clock decides when to give up deterministically.
func (u *Uplink) Flush(timeout time.Duration) bool {
	deadline := u.now().Add(timeout)
	for {
		if u.ob.Stats().Pending == 0 {
			return true
		}
		if u.now().After(deadline) || u.pub == nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Close stops the publisher (status offline; messages in flight stay in
// the outbox for the next start) and closes the outbox.
func (u *Uplink) Close() error {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil
	}
	u.closed = true
	u.mu.Unlock()
	if u.acks != nil {
		u.acks.close()
		u.repair.close()
	}
	if u.pub != nil {
		u.pub.Close()
	}
	return u.ob.Close()
}
