package sink

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sink/receive"
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
	// ClientID. Default "edged-sink" without a Group, else
	// "edged-sink-GROUP-HOST": unique per host, so sinks of one group
	// never take over each other's session. The session is persistent
	// (clean session off), so the broker queues messages while the sink
	// is away: keep the id stable; give two sinks of one group on one
	// host each its own.
	ClientID string
	// Store, when set, is where the sink writes (rooted at Out: the
	// episodes under episodes/, statuses under robots/, staged chunks
	// under .sink/chunks/, acknowledgements not yet confirmed under
	// .sink/acks/); the default is the directory Out. Out then
	// only names it.
	Store blob.Blobs
	// StateDir holds the sink's own state (its id log and lock), which
	// is never shared. Default: Out/.sink (no Group) or
	// Out/.sink/CLIENTID on a directory; required with a Store.
	StateDir string
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
	// MaxPartialPerRobot caps the incomplete messages held for one
	// robot (one topic level), so that a publisher filling the slots
	// only blocks itself. Default 64: twice the robot's default window
	// of messages in flight.
	MaxPartialPerRobot int
	// MaxPartialBytesPerRobot caps the bytes of one robot's incomplete
	// messages. Default 2 x MaxMessage; never below MaxMessage.
	MaxPartialBytesPerRobot int64
	// ChunkTimeout drops an incomplete message this long after its first
	// chunk. Default 10m.
	ChunkTimeout time.Duration
	// MaxIDs remembered for dedupe. Default 1,000,000.
	MaxIDs int
	// Lanes is how many messages the sink handles at once: a robot's
	// messages always take the same lane, in the order they arrived, so
	// lanes only overlap the store's latency (fsyncs, object store
	// requests) of different robots. Default 8; 1 handles one message
	// at a time.
	Lanes int
	// OnDeliver, when set, is called after a whole message's files are
	// written (in Handle's goroutine, from several lanes at once: keep
	// it short and safe for concurrent use).
	OnDeliver func(e *wire.Envelope)
	// RepairAfter: an episode whose end manifest arrived and that is not
	// complete this long after is asked for (repair.go), then again
	// twice as long after each request (at most 10m). Default 30s.
	RepairAfter time.Duration
	// MaxRepairAsks bounds the repair requests for one end manifest;
	// the robot's next end manifest starts again. Default 6.
	MaxRepairAsks int
	// OnComplete, when set, is called when a message made an episode
	// complete, before its acknowledgement is published (in Handle's
	// goroutine, from several lanes at once: keep it short and safe for
	// concurrent use).
	OnComplete func(robot, episode string)
}

func (c Config) withDefaults() Config {
	if c.Auth.Keys == (mqttconn.Keys{}) {
		c.Auth.Keys = FlagKeys
	}
	if c.Prefix == "" {
		c.Prefix = "edged"
	}
	if c.ClientID == "" {
		c.ClientID = "edged-sink"
		if c.Group != "" {
			host, _ := os.Hostname()
			c.ClientID += "-" + c.Group + "-" + safeName(host)
		}
	}
	if c.StateDir == "" && c.Store == nil {
		c.StateDir = filepath.Join(c.Out, ".sink")
		if c.Group != "" {
			c.StateDir = filepath.Join(c.StateDir, safeName(c.ClientID))
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
	if c.MaxPartialPerRobot <= 0 {
		c.MaxPartialPerRobot = 64
	}
	if c.MaxPartialBytesPerRobot <= 0 {
		c.MaxPartialBytesPerRobot = 2 * int64(c.MaxMessage)
	}
	c.MaxPartialBytesPerRobot = max(c.MaxPartialBytesPerRobot, int64(c.MaxMessage))
	if c.ChunkTimeout <= 0 {
		c.ChunkTimeout = 10 * time.Minute
	}
	if c.MaxIDs <= 0 {
		c.MaxIDs = 1_000_000
	}
	if c.Lanes <= 0 {
		c.Lanes = 8
	}
	c.Lanes = min(c.Lanes, maxLanes)
	if c.RepairAfter <= 0 {
		c.RepairAfter = DefaultRepairAfter
	}
	if c.MaxRepairAsks <= 0 {
		c.MaxRepairAsks = DefaultMaxRepairAsks
	}
	return c
}

// Defaults of Config's repair (repair.go).
const (
	DefaultRepairAfter   = 30 * time.Second
	DefaultMaxRepairAsks = 6
)

// Stats are cumulative counts.
type Stats struct {
	Received   uint64 // MQTT messages
	Delivered  uint64 // whole messages written
	Duplicates uint64
	Rejected   uint64 // invalid envelopes, bodies, chunks, conflicts: acknowledged and dropped
	Retried    uint64 // left unacknowledged (a failed write, a cap): the broker redelivers them
	Conflicts  uint64 // messages refused because a file exists with another content
	Chunks     uint64
	Expired    uint64 // incomplete messages dropped after ChunkTimeout
	Statuses   uint64 // statuses written
	// StaleStatuses: statuses older than the one held (wire.Status.Newer),
	// dropped.
	StaleStatuses uint64
	Connects      uint64
	Completed     uint64 // episodes made complete
	Acked         uint64 // acknowledgements the broker took
	// Races: conditional writes of the store lost to another sink of
	// the group (each re-read and applied again; receive.Receiver).
	Races uint64
	// RepairRequests: requests published to robots for the pieces of an
	// episode the sink lacks; Reacks: acknowledgements published again
	// for an end manifest of an episode held complete; FollowDropped:
	// incomplete episodes no longer followed because maxFollowed were.
	RepairRequests uint64
	Reacks         uint64
	FollowDropped  uint64
}

// State is what a sink holds now, beside its counters (Stats).
type State struct {
	Connected    bool  // subscribed at the broker
	AcksPending  int   // acknowledgements waiting to be published
	PartialBytes int64 // incomplete chunked messages held in memory
	Staged       int   // chunked messages this sink staged for the group
	// Incomplete: episodes whose end manifest arrived that are not
	// complete (followed for repair); OldestIncomplete: since when the
	// oldest of them is.
	Incomplete       int
	OldestIncomplete time.Time
}

// Sink is one receiver.
type Sink struct {
	cfg Config
	log *slog.Logger

	stateLock *os.File
	// lanes serialize the messages of one robot (lane); mu guards the
	// sink's memory (staged, acks, partials, robots, pbytes) and is never
	// held across the store's I/O but to expire.
	lanes  []sync.Mutex
	mu     sync.Mutex
	ids    *idLog
	store  blob.Blobs // rooted at Out
	recv   *receive.Receiver
	staged map[string]time.Time // messages this sink staged chunks of (messageDir) -> when they expire
	group  groupStage           // what the group staged, as this sink saw it (stagecaps.go)
	// nextExpire: expire's next look (under mu).
	nextExpire time.Time
	acks       []queuedAck // to publish, oldest first (under mu)
	partials   map[partKey]*partial
	robots     map[string]*robotUse
	pbytes     int64
	followed   map[string]*followed // ROBOT/EPISODE -> incomplete episode (repair.go)
	endLooked  map[string]time.Time // ROBOT/EPISODE -> when an end of it was last looked at (repair.go)

	received, delivered, duplicates, rejected, chunks, expired, statuses, connects atomic.Uint64
	retried, conflicts, completes, acked, staleStatuses                            atomic.Uint64
	repairRequests, reacks, repairsDropped                                         atomic.Uint64
	connected                                                                      atomic.Bool
	now                                                                            func() time.Time
	writeFn                                                                        func(path string, b []byte) error
	ackNotify                                                                      chan struct{}
	ackSent                                                                        map[wire.Ack]sentAck // published, not confirmed: the session loop's
	ackWait                                                                        time.Duration        // for a PUBACK before trying again
	nextAckScan                                                                    time.Time            // the session loop's (acks.go)
	nextAlive                                                                      time.Time            // the session loop's (acks.go)
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
	// Bad TLS files are refused here, not retried by Run's loop.
	if _, err := cfg.Auth.TLSConfig(); err != nil {
		return nil, fmt.Errorf("sink: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.StateDir == "" {
		return nil, errors.New("sink: --state is required with an object store (a local directory for the sink's own state)")
	}
	if err := os.MkdirAll(cfg.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("sink: state directory: %w", err)
	}
	lock, err := lockState(cfg.StateDir, cfg.ClientID)
	if err != nil {
		return nil, err
	}
	ids, err := openIDLog(filepath.Join(cfg.StateDir, "ids.log"), cfg.MaxIDs)
	if err != nil {
		lock.Close()
		return nil, err
	}
	s := &Sink{cfg: cfg, log: log, ids: ids, stateLock: lock, partials: map[partKey]*partial{}, staged: map[string]time.Time{}, ackSent: map[wire.Ack]sentAck{},
		lanes:  make([]sync.Mutex, cfg.Lanes),
		robots: map[string]*robotUse{}, followed: map[string]*followed{}, endLooked: map[string]time.Time{}, now: time.Now, writeFn: writeFile,
		ackNotify: make(chan struct{}, 1), ackWait: 10 * time.Second}
	s.store = cfg.Store
	opts := receive.Options{Shared: cfg.Group != ""}
	if s.store == nil {
		// The hook reads s's field on every call, so tests can swap it.
		s.store = blob.Dir{Root: cfg.Out, WriteFile: func(p string, b []byte) error { return s.writeFn(p, b) }}
		opts.WriteFile = func(p string, b []byte) error { return s.writeFn(p, b) }
	} else {
		opts.Blobs = blob.Sub(s.store, episode.EpisodesDir)
	}
	s.recv, err = receive.Open(filepath.Join(cfg.Out, episode.EpisodesDir), opts)
	if err != nil {
		ids.close()
		lock.Close()
		return nil, fmt.Errorf("sink: %w", err)
	}
	return s, nil
}

// Stats returns a snapshot.
func (s *Sink) Stats() Stats {
	return Stats{Received: s.received.Load(), Delivered: s.delivered.Load(), Duplicates: s.duplicates.Load(),
		Rejected: s.rejected.Load(), Chunks: s.chunks.Load(), Expired: s.expired.Load(), Statuses: s.statuses.Load(), StaleStatuses: s.staleStatuses.Load(),
		Connects: s.connects.Load(), Retried: s.retried.Load(), Conflicts: s.conflicts.Load(),
		Completed: s.completes.Load(), Acked: s.acked.Load(), Races: s.recv.Races(),
		RepairRequests: s.repairRequests.Load(), Reacks: s.reacks.Load(), FollowDropped: s.repairsDropped.Load()}
}

// State returns a snapshot of what the sink holds.
func (s *Sink) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{Connected: s.connected.Load(), AcksPending: len(s.acks), PartialBytes: s.pbytes, Staged: len(s.staged),
		Incomplete: len(s.followed)}
	for _, f := range s.followed {
		if st.OldestIncomplete.IsZero() || f.since.Before(st.OldestIncomplete) {
			st.OldestIncomplete = f.since
		}
	}
	return st
}

// Close closes the id log and the episode store. Call it after Run
// returned and no Handle is running.
func (s *Sink) Close() error {
	err := s.ids.close()
	if rerr := s.recv.Close(); err == nil {
		err = rerr
	}
	s.stateLock.Close()
	return err
}
