// Package sink is the reference receiver of the uplink (`edged sink`):
// it subscribes to PREFIX/+/+ (or $share/GROUP/PREFIX/+/+), validates
// every envelope, drops duplicates by id (also across restarts: a
// persistent id log), reassembles chunks under caps and a timeout, and
// writes each episode as a directory:
//
//	OUT/ROBOT/status.json                    the latest retained status
//	OUT/ROBOT/EPISODE/manifest.json          episode_start, replaced by episode_end
//	OUT/ROBOT/EPISODE/segments/segment-NNNN.json
//	OUT/ROBOT/EPISODE/sheets/CAMERA/sheet-NNNN.jpg and .json
//	OUT/ROBOT/EPISODE/snippets/CAMERA/sheet-NNNN.msgpack.zst
//	OUT/ROBOT/EPISODE/labels/CAMERA/label-TTTTTT-TTTTTT.jpg and .json
//
// Every file is written atomically (temp file, fsync, rename, fsync of
// the directory) before the message's id is logged and before the MQTT
// handler returns, so the broker's redelivery covers a crash.
//
// Concurrency: Handle is serialized by a mutex; Run owns the connection
// loop and returns when its context ends.
package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Config of a Sink. Zero values take the defaults.
type Config struct {
	Broker string // required for Run
	Out    string // required
	// Group, when set, subscribes through $share/GROUP/ so several sinks
	// share the load.
	Group string
	// Prefix of the topics. Default "edged".
	Prefix string
	// ClientID. Default "edged-sink" (+ "-" + Group). The session is
	// persistent (clean session off), so the broker queues messages
	// while the sink is away: keep the id stable.
	ClientID string
	Auth     mqttconn.Auth
	// MaxMessage caps a reassembled body. Default 64MiB.
	MaxMessage int
	// MaxChunks caps the chunks of one message. Default 4096.
	MaxChunks int
	// MaxPartialBytes caps the bytes of incomplete messages held.
	// Default 256MiB.
	MaxPartialBytes int64
	// MaxPartial caps the incomplete messages held. Default 256.
	MaxPartial int
	// ChunkTimeout drops an incomplete message this long after its first
	// chunk. Default 10m.
	ChunkTimeout time.Duration
	// MaxIDs remembered for dedupe. Default 1,000,000.
	MaxIDs int
	// OnDeliver, when set, is called after a whole message's files are
	// written (in Handle's goroutine; keep it short).
	OnDeliver func(e *wire.Envelope)
}

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "edged"
	}
	if c.ClientID == "" {
		c.ClientID = "edged-sink"
		if c.Group != "" {
			c.ClientID += "-" + c.Group
		}
	}
	if c.MaxMessage <= 0 || c.MaxMessage > wire.MaxBody {
		c.MaxMessage = wire.MaxBody
	}
	if c.MaxChunks <= 0 || c.MaxChunks > wire.MaxChunks {
		c.MaxChunks = wire.MaxChunks
	}
	if c.MaxPartialBytes <= 0 {
		c.MaxPartialBytes = 256 << 20
	}
	if c.MaxPartial <= 0 {
		c.MaxPartial = 256
	}
	if c.ChunkTimeout <= 0 {
		c.ChunkTimeout = 10 * time.Minute
	}
	if c.MaxIDs <= 0 {
		c.MaxIDs = 1_000_000
	}
	return c
}

// Stats are cumulative counts.
type Stats struct {
	Received   uint64 // MQTT messages
	Delivered  uint64 // whole messages written
	Duplicates uint64
	Rejected   uint64 // invalid envelopes, bodies, chunks, caps
	Chunks     uint64
	Expired    uint64 // incomplete messages dropped after ChunkTimeout
	Statuses   uint64
	Connects   uint64
}

// Sink is one receiver.
type Sink struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	ids      *idLog
	partials map[string]*partial
	pbytes   int64

	received, delivered, duplicates, rejected, chunks, expired, statuses, connects atomic.Uint64
	now                                                                            func() time.Time
}

type partial struct {
	first  *wire.Envelope // fields every chunk must match
	parts  [][]byte
	got    int
	bytes  int64
	expiry time.Time
}

// New validates cfg and opens the output directory and id log.
func New(cfg Config, log *slog.Logger) (*Sink, error) {
	cfg = cfg.withDefaults()
	if cfg.Out == "" {
		return nil, errors.New("sink: --out is required")
	}
	if cfg.Group != "" && (strings.ContainsAny(cfg.Group, "/+#") || !wire.SafeName(cfg.Group)) {
		return nil, fmt.Errorf("sink: --group must be a plain name, got %q", cfg.Group)
	}
	if cfg.Broker != "" {
		if _, _, err := mqttconn.BrokerURL(cfg.Broker); err != nil {
			return nil, fmt.Errorf("sink: --%w", err)
		}
	}
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(filepath.Join(cfg.Out, ".sink"), 0o755); err != nil {
		return nil, fmt.Errorf("sink: %w", err)
	}
	ids, err := openIDLog(idLogPath(cfg.Out), cfg.MaxIDs)
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg, log: log, ids: ids, partials: map[string]*partial{}, now: time.Now}, nil
}

// Stats returns a snapshot.
func (s *Sink) Stats() Stats {
	return Stats{Received: s.received.Load(), Delivered: s.delivered.Load(), Duplicates: s.duplicates.Load(),
		Rejected: s.rejected.Load(), Chunks: s.chunks.Load(), Expired: s.expired.Load(), Statuses: s.statuses.Load(),
		Connects: s.connects.Load()}
}

// Close closes the id log.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.close()
}

// Filter is the subscription topic filter.
func (s *Sink) Filter() string {
	f := s.cfg.Prefix + "/+/+"
	if s.cfg.Group != "" {
		f = "$share/" + s.cfg.Group + "/" + f
	}
	return f
}

// Run connects, subscribes and receives until ctx ends, reconnecting
// with a jittered backoff.
func (s *Sink) Run(ctx context.Context) error {
	if s.cfg.Broker == "" {
		return errors.New("sink: --broker is required")
	}
	bo := mqttconn.Backoff{Max: 10 * time.Second}
	for ctx.Err() == nil {
		err := s.session(ctx)
		if ctx.Err() != nil {
			break
		}
		wait := bo.Next()
		s.log.Warn("sink: disconnected; retrying", "err", err, "retry_in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return nil
}

func (s *Sink) session(ctx context.Context) error {
	o, err := mqttconn.ClientOptions(s.cfg.Broker, s.cfg.ClientID, s.cfg.Auth, true)
	if err != nil {
		return err
	}
	lost := make(chan error, 1)
	o.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		select {
		case lost <- err:
		default:
		}
	})
	handler := func(_ mqtt.Client, m mqtt.Message) {
		if err := s.Handle(m.Topic(), m.Payload()); err != nil {
			s.log.Warn("sink: message rejected", "topic", m.Topic(), "err", err)
		}
	}
	// The session is persistent: the broker sends what it queued right
	// after CONNACK, before Subscribe returns. Without a default handler
	// paho would acknowledge those messages and drop them.
	o.SetDefaultPublishHandler(handler)
	c := mqtt.NewClient(o)
	t := c.Connect()
	if !t.WaitTimeout(15*time.Second) || t.Error() != nil {
		c.Disconnect(0)
		return mqttconn.Explain(s.cfg.Broker, t.Error())
	}
	defer c.Disconnect(250)
	st := c.Subscribe(s.Filter(), 1, handler)
	if !st.WaitTimeout(15*time.Second) || st.Error() != nil {
		return fmt.Errorf("sink: subscribe %s: %v", s.Filter(), st.Error())
	}
	s.connects.Add(1)
	s.log.Info("sink: receiving", "broker", s.cfg.Broker, "filter", s.Filter(), "out", s.cfg.Out)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-lost:
			return err
		case <-tick.C:
			s.mu.Lock()
			s.expire()
			s.mu.Unlock()
		}
	}
}

// Handle processes one MQTT message. An error means it was rejected (and
// counted); the sink carries on.
func (s *Sink) Handle(topic string, payload []byte) error {
	s.received.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.handle(topic, payload)
	if err != nil {
		s.rejected.Add(1)
	}
	return err
}

func (s *Sink) handle(topic string, payload []byte) error {
	s.expire()
	env, err := wire.Decode(payload, s.cfg.MaxMessage+64<<10)
	if err != nil {
		return err
	}
	if want := s.cfg.Prefix + "/" + env.Robot + "/" + env.Kind; topic != want {
		return fmt.Errorf("sink: envelope for %s arrived on %s", want, topic)
	}
	if int(env.Size) > s.cfg.MaxMessage || int(env.Chunks) > s.cfg.MaxChunks {
		return fmt.Errorf("sink: message of %d bytes in %d chunks exceeds the caps", env.Size, env.Chunks)
	}
	if env.Kind == wire.KindStatus {
		return s.writeStatus(env)
	}
	if s.ids.has(env.ID) {
		s.duplicates.Add(1)
		return nil
	}
	body := env.Body
	if env.Chunks > 1 {
		s.chunks.Add(1)
		var done bool
		if body, done, err = s.addChunk(env); err != nil || !done {
			return err
		}
	}
	if err := s.deliver(env, body); err != nil {
		return err
	}
	s.delivered.Add(1)
	if s.cfg.OnDeliver != nil {
		s.cfg.OnDeliver(env)
	}
	return s.ids.add(env.ID)
}

// addChunk stores one chunk; it returns the whole body once complete.
func (s *Sink) addChunk(e *wire.Envelope) ([]byte, bool, error) {
	p := s.partials[e.ID]
	if p == nil {
		if len(s.partials) >= s.cfg.MaxPartial {
			return nil, false, fmt.Errorf("sink: %d incomplete messages held already (cap)", len(s.partials))
		}
		head := *e
		head.Body = nil
		p = &partial{first: &head, parts: make([][]byte, e.Chunks), expiry: s.now().Add(s.cfg.ChunkTimeout)}
		s.partials[e.ID] = p
	}
	f := p.first
	if e.Robot != f.Robot || e.Episode != f.Episode || e.Kind != f.Kind || e.Seq != f.Seq ||
		e.Chunks != f.Chunks || e.Size != f.Size || e.CRC != f.CRC {
		return nil, false, fmt.Errorf("sink: chunk %d of %s disagrees with the first chunk", e.Chunk, e.ID)
	}
	if p.parts[e.Chunk] != nil {
		s.duplicates.Add(1)
		return nil, false, nil
	}
	if p.bytes+int64(len(e.Body)) > int64(f.Size) {
		s.drop(e.ID)
		return nil, false, fmt.Errorf("sink: chunks of %s exceed its size %d", e.ID, f.Size)
	}
	if s.pbytes+int64(len(e.Body)) > s.cfg.MaxPartialBytes {
		return nil, false, fmt.Errorf("sink: incomplete messages hold %d bytes (cap %d)", s.pbytes, s.cfg.MaxPartialBytes)
	}
	p.parts[e.Chunk] = append([]byte(nil), e.Body...)
	p.got++
	p.bytes += int64(len(e.Body))
	s.pbytes += int64(len(e.Body))
	if p.got < len(p.parts) {
		return nil, false, nil
	}
	s.drop(e.ID)
	body := make([]byte, 0, f.Size)
	for _, b := range p.parts {
		body = append(body, b...)
	}
	if uint32(len(body)) != f.Size || wire.Checksum(body) != f.CRC {
		return nil, false, fmt.Errorf("sink: reassembled %s: size or checksum mismatch", e.ID)
	}
	return body, true, nil
}

func (s *Sink) drop(id string) {
	if p := s.partials[id]; p != nil {
		s.pbytes -= p.bytes
		delete(s.partials, id)
	}
}

func (s *Sink) expire() {
	now := s.now()
	for id, p := range s.partials {
		if now.After(p.expiry) {
			s.drop(id)
			s.expired.Add(1)
			s.log.Warn("sink: incomplete message expired", "id", id, "chunks", p.got, "of", len(p.parts))
		}
	}
}

func (s *Sink) writeStatus(e *wire.Envelope) error {
	var st wire.Status
	if _, err := st.UnmarshalMsg(e.Body); err != nil {
		return fmt.Errorf("sink: status: %w", err)
	}
	b, _ := json.MarshalIndent(statusJSON{Robot: e.Robot, State: st.State, Version: st.Version, Backlog: st.Backlog,
		BacklogBytes: st.BacklogBytes, Evicted: st.Evicted, Time: time.Unix(0, st.Time).UTC()}, "", "  ")
	dir := filepath.Join(s.cfg.Out, e.Robot)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.statuses.Add(1)
	return fsutil.WriteFileAtomic(filepath.Join(dir, "status.json"), append(b, '\n'))
}

type statusJSON struct {
	Robot        string    `json:"robot"`
	State        string    `json:"state"`
	Version      string    `json:"version"`
	Backlog      int64     `json:"backlog"`
	BacklogBytes int64     `json:"backlog_bytes"`
	Evicted      int64     `json:"evicted"`
	Time         time.Time `json:"time"`
}
