package uplink

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/publish"
	"github.com/edged-robotics/edged/uplink/snippet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Options are the non-config dependencies.
type Options struct {
	Logger *slog.Logger
	// Now is the wall clock for envelope creation times. Default time.Now.
	Now func() time.Time
	// OnUploaded, when set and a broker is configured, is called with
	// the id of each episode the receiver acknowledged holding complete
	// (from the acknowledgement goroutine; the daemon marks the episode
	// uploaded). It may be called again for the same episode.
	OnUploaded func(episodeID string)
}

// Stats for /metrics.
type Stats struct {
	Outbox    outbox.Stats
	Publisher publish.Stats // zero without a broker
	Enqueued  uint64
	Dropped   uint64 // sheets refused by a full outbox
	Errors    uint64 // enqueue failures (disk errors)
	Snippets  uint64
	Acks      uint64 // acknowledgements of complete episodes received
	BadAcks   uint64 // acknowledgements dropped (not for this robot)
}

// Uplink is the running uplink; create it with New.
type Uplink struct {
	cfg   Config
	log   *slog.Logger
	now   func() time.Time
	ob    *outbox.Outbox
	pub   *publish.Publisher
	snips *snippet.Recorder
	acks  *ackListener

	mu                                  sync.Mutex
	closed                              bool
	enqueued, dropped, errors, snippets uint64
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
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ob, err := outbox.Open(outbox.Options{Dir: cfg.Dir, MaxBytes: cfg.OutboxBytes, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	for _, r := range ob.Recovered() {
		opts.Logger.Warn("uplink: outbox recovered after a crash", "what", r)
	}
	u := &Uplink{cfg: cfg, log: opts.Logger, now: opts.Now, ob: ob, snips: snippet.New(cfg.Snippet)}
	if cfg.Broker != "" {
		u.pub, err = publish.Start(publish.Config{Broker: cfg.Broker, ClientID: cfg.ClientID, Auth: cfg.Auth,
			Prefix: cfg.TopicPrefix, Robot: cfg.Robot, MaxPayload: cfg.MaxPayload, Window: cfg.Window,
			Bandwidth: cfg.Bandwidth, Version: cfg.Version, MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff},
			ob, u.status, opts.Logger)
		if err != nil {
			ob.Close()
			return nil, err
		}
		if opts.OnUploaded != nil {
			u.acks = startAcks(cfg, opts.OnUploaded, opts.Logger)
		}
	}
	return u, nil
}

// Snippets is the joint-state recorder the daemon feeds
// (PutJoints); Sheet cuts each sheet's snippet from it.
func (u *Uplink) Snippets() *snippet.Recorder { return u.snips }

func (u *Uplink) status() wire.Status {
	s := u.ob.Stats()
	return wire.Status{Backlog: int64(s.Pending), BacklogBytes: s.PendingBytes, Evicted: int64(s.Evicted)}
}

// EpisodeStarted enqueues an episode_start message.
func (u *Uplink) EpisodeStarted(m episode.Manifest) error {
	return u.manifest(wire.KindEpisodeStart, 0, m)
}

// EpisodeEnded enqueues an episode_end message.
func (u *Uplink) EpisodeEnded(m episode.Manifest) error {
	return u.manifest(wire.KindEpisodeEnd, 1, m)
}

func (u *Uplink) manifest(kind string, seq uint64, m episode.Manifest) error {
	b, err := ManifestBody(m).MarshalMsg(nil)
	if err != nil {
		return err
	}
	return u.put(outbox.PriorityControl, m.ID, kind, seq, b)
}

// ManifestBody converts an episode manifest to its wire form.
func ManifestBody(m episode.Manifest) *wire.Manifest {
	return &wire.Manifest{ID: m.ID, Robot: m.Robot, Name: m.Name, Instruction: m.Instruction,
		Start: unixNano(m.Start), End: unixNano(m.End), Closed: m.Closed, Outcome: m.Outcome,
		EndReason: m.EndReason, Segments: int64(m.Segments), Transitions: int64(m.Transitions), Created: unixNano(m.Created),
		Produced: produced(m.Produced)}
}

// produced lists the per-camera counts in camera order.
func produced(p map[string]episode.CameraCounts) []wire.CameraCount {
	out := make([]wire.CameraCount, 0, len(p))
	for cam, c := range p {
		out = append(out, wire.CameraCount{Camera: cam, Sheets: int64(c.Sheets), LabelSheets: int64(c.LabelSheets),
			Snippets: int64(c.Snippets)})
	}
	slices.SortFunc(out, func(a, b wire.CameraCount) int { return strings.Compare(a.Camera, b.Camera) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// Segment enqueues a closed segment of episode m.
func (u *Uplink) Segment(m episode.Manifest, s episode.Segment) error {
	b, err := (&wire.Segment{Index: int64(s.Index), Start: unixNano(s.Start), End: unixNano(s.End),
		StartSec: s.StartSec, EndSec: s.EndSec, Label: s.Label, Path: s.Path, Source: s.Source, Kind: s.Kind,
		Outcome: s.Outcome, GoalID: s.GoalID}).MarshalMsg(nil)
	if err != nil {
		return err
	}
	return u.put(outbox.PriorityControl, m.ID, wire.KindSegment, uint64(s.Index), b)
}

// Sheet enqueues a contact sheet of episode and its state snippet (cut
// from Snippets() now, so call it once the sheet's last tick passed).
// The snippet goes at a higher priority than the sheet: when the outbox
// is full the sheet may be evicted, the snippet is not.
func (u *Uplink) Sheet(episodeID string, s *sheet.Sheet) error {
	sn := u.snips.ForSheet(episodeID, &s.Meta)
	snip, err := wire.EncodeSnippet(sn)
	if err != nil {
		return err
	}
	body, err := sheetBody(s, -1)
	if err != nil {
		return err
	}
	seq := uint64(s.Meta.Index)
	created := u.now().UnixNano()
	envs := []*wire.Envelope{
		wire.New(wire.NewID(), u.cfg.Robot, episodeID, wire.KindSnippet, seq, created, snip),
		wire.New(wire.NewID(), u.cfg.Robot, episodeID, wire.KindSheet, seq, created, body),
	}
	u.mu.Lock()
	u.snippets++
	u.mu.Unlock()
	return u.putEnvs([]outbox.Priority{outbox.PrioritySnippet, outbox.PrioritySheet}, envs)
}

// LabelSheet enqueues the labeling sheet of segment index of episode.
func (u *Uplink) LabelSheet(episodeID string, segment int, s *sheet.Sheet) error {
	body, err := sheetBody(s, segment)
	if err != nil {
		return err
	}
	return u.put(outbox.PrioritySheet, episodeID, wire.KindLabelSheet, uint64(segment), body)
}

func sheetBody(s *sheet.Sheet, segment int) ([]byte, error) {
	meta, err := json.Marshal(&s.Meta)
	if err != nil {
		return nil, fmt.Errorf("uplink: sheet metadata: %w", err)
	}
	idx := int64(s.Meta.Index)
	if segment >= 0 {
		idx = int64(segment)
	}
	return (&wire.SheetBody{Camera: s.Meta.CameraID(), Index: idx, Segment: int64(segment), Name: sheet.Name(s),
		Meta: meta, JPEG: s.JPEG}).MarshalMsg(nil)
}

func (u *Uplink) put(p outbox.Priority, episodeID, kind string, seq uint64, body []byte) error {
	env := wire.New(wire.NewID(), u.cfg.Robot, episodeID, kind, seq, u.now().UnixNano(), body)
	return u.putEnvs([]outbox.Priority{p}, []*wire.Envelope{env})
}

func (u *Uplink) putEnvs(prios []outbox.Priority, envs []*wire.Envelope) error {
	msgs := make([]outbox.Msg, len(envs))
	for i, e := range envs {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("uplink: %s: %w", e.Kind, err)
		}
		// The receiver takes only ids of this robot (the rule episode
		// ids are made by): refuse now rather than ship a message it
		// would drop.
		if err := episode.CheckID(u.cfg.Robot, e.Episode); err != nil {
			return fmt.Errorf("uplink: %s not queued: %w", e.Kind, err)
		}
		b, err := e.MarshalMsg(nil)
		if err != nil {
			return err
		}
		msgs[i] = outbox.Msg{Priority: prios[i], Data: b}
	}
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
	}
	u.mu.Lock()
	s.Enqueued, s.Dropped, s.Errors, s.Snippets = u.enqueued, u.dropped, u.errors, u.snippets
	u.mu.Unlock()
	return s
}

// Flush waits until the outbox is empty or the timeout passes, and
// reports whether it emptied (tests, and a graceful shutdown that wants
// to drain).
func (u *Uplink) Flush(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if u.ob.Stats().Pending == 0 {
			return true
		}
		if time.Now().After(deadline) || u.pub == nil {
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
	}
	if u.pub != nil {
		u.pub.Close()
	}
	return u.ob.Close()
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
