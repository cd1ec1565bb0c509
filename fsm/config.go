package fsm

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/ros/msg"
)

// Source kinds, the config file's fsm[].type (fsmkind owns the names;
// cmd/edged and daemon map the file onto Config, fsm does not read it).
const (
	KindString    = fsmkind.String
	KindSmach     = fsmkind.Smach
	KindActionlib = fsmkind.Actionlib
	KindField     = fsmkind.Field
)

// Source is one FSM topic.
type Source struct {
	Topic string
	// Kind is string | smach | actionlib | field. Default string.
	Kind string
	// Field is the path of the state for kind field (status.phase).
	Field string
	// IdleStates (labels) are between episodes. Default none.
	IdleStates []string
}

// Config configures the fsm stage.
type Config struct {
	Robot   string
	Sources []Source
	// RecordingTopic (std_msgs/Bool or String) decides episodes alone
	// when set. Default none.
	RecordingTopic string
	// Instruction stored with every episode. Default "".
	Instruction string
	// InstructionTopic (std_msgs/String) overrides Instruction.
	InstructionTopic string
	// Clock reads the stream clock (capture's: header stamps, receive
	// time or /clock; see capture.Capture.Now) for what happens between
	// events: an episode cut at MaxDuration while no event arrives, and
	// the end of the episode still open at Close. ok false: no reading
	// yet. Default nil: the clock is the latest event stamp, moved on by
	// Advance (edged replay drives it from the recording's time, so that a
	// replay does not depend on how fast it ran).
	Clock func() (t time.Time, ok bool)
	// MaxDuration cuts longer episodes. Default 1h.
	MaxDuration time.Duration
	// HeartbeatEvery: an unchanged state is recorded at most this often.
	// Default 5s.
	HeartbeatEvery time.Duration
	// QueueSize bounds the events waiting for the run loop. Default 4096.
	QueueSize int
	// QueueBytes bounds the memory those events hold (the sum of their
	// capture.StateEvent.Bytes): one flooding FSM publisher costs at
	// most this much here. Default 64 MiB.
	QueueBytes int64
	// Logger reports what degrades recording (truncated labels, episode
	// store write failures and their end), once per kind and source, not
	// per message. Default: discard.
	Logger *slog.Logger
	// Observer hears of episodes and segments once they are durable.
	// Default none.
	Observer Observer
}

// Observer is told, from the fsm goroutine, of each episode that begins,
// each state transition inside it, each segment that closes and each
// episode that ends, after the store has it (segments and ends durably).
// Its methods must return quickly (hand the value to a queue): the fsm
// run loop waits for them. The values are copies.
type Observer interface {
	EpisodeBegan(m episode.Manifest)
	Transition(m episode.Manifest, t episode.Transition)
	SegmentClosed(m episode.Manifest, s episode.Segment)
	EpisodeEnded(m episode.Manifest)
}

// Defaults of Config.
const (
	DefaultMaxDuration    = time.Hour
	DefaultHeartbeatEvery = 5 * time.Second
	DefaultQueueSize      = 4096
	DefaultQueueBytes     = 64 << 20
)

// Wanted reports whether c starts an fsm stage at all: an FSM source or
// a recording topic is configured (otherwise edged runs sessions).
func (c Config) Wanted() bool { return len(c.Sources) > 0 || c.RecordingTopic != "" }

// Topics lists every topic the fsm stage wants state events from (the
// sources, then the recording and instruction topics), and which of them
// must be delivered as a dynamic *msg.Value (field sources).
func (c Config) Topics() (topics []string, dynamic []bool) {
	for _, s := range c.Sources {
		topics = append(topics, s.Topic)
		dynamic = append(dynamic, s.Kind == KindField)
		if g := GoalTopic(s.Topic); s.Kind == KindActionlib && g != "" {
			topics = append(topics, g) // the goals' fields (goal.go)
			dynamic = append(dynamic, true)
		}
	}
	for _, t := range []string{c.RecordingTopic, c.InstructionTopic} {
		if t != "" {
			topics = append(topics, t)
			dynamic = append(dynamic, false)
		}
	}
	return topics, dynamic
}

func (c *Config) defaults() {
	c.Sources = append([]Source(nil), c.Sources...)
	if c.MaxDuration == 0 {
		c.MaxDuration = DefaultMaxDuration
	}
	if c.HeartbeatEvery == 0 {
		c.HeartbeatEvery = DefaultHeartbeatEvery
	}
	if c.QueueSize == 0 {
		c.QueueSize = DefaultQueueSize
	}
	if c.QueueBytes == 0 {
		c.QueueBytes = DefaultQueueBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for i := range c.Sources {
		if c.Sources[i].Kind == "" {
			c.Sources[i].Kind = fsmkind.Default
		}
	}
}

// MinMaxDuration is the shortest episode.max_duration: an episode
// shorter than a second holds no sheet.
const MinMaxDuration = time.Second

// CheckMaxDuration is the one rule of episode.max_duration, which cuts
// episodes here and sessions in the daemon (daemon.Check applies it to
// the value as written, where 0 is no default).
func CheckMaxDuration(d time.Duration) error {
	if d < MinMaxDuration {
		return fielderr.New("episode.max_duration", "must be >= %s, got %s", MinMaxDuration, d)
	}
	return nil
}

// Validate checks the config without I/O; errors are *fielderr.Error
// naming the config key. The rules of the sources' types and field
// paths and of episode.max_duration are fsm's own (config does not
// repeat them); topic names and one role per topic are capture's
// (capture.Config.Validate), which sees these topics too.
func (c Config) Validate() error {
	if len(c.Sources) == 0 && c.RecordingTopic == "" {
		// A recording topic alone decides episodes (see the package doc).
		return fmt.Errorf("fsm: at least one source or a recording topic is required")
	}
	for i, s := range c.Sources {
		if err := s.validate(fmt.Sprintf("fsm[%d]", i)); err != nil {
			return err
		}
	}
	if c.MaxDuration != 0 { // 0: the default
		if err := CheckMaxDuration(c.MaxDuration); err != nil {
			return err
		}
	}
	if c.HeartbeatEvery < 0 || c.QueueSize < 0 || c.QueueBytes < 0 {
		return fmt.Errorf("fsm: heartbeat interval, queue size and queue bytes must be >= 0")
	}
	return nil
}

// validate checks one source, f being its config key (fsm[0]).
func (s Source) validate(f string) error {
	if s.Topic == "" {
		return fielderr.New(f+".topic", "required")
	}
	kind := s.Kind
	if kind == "" {
		kind = fsmkind.Default
	}
	switch kind {
	case KindString, KindSmach, KindActionlib:
		if s.Field != "" {
			return fielderr.New(f+".field", "only allowed with type field")
		}
	case KindField:
		if s.Field == "" {
			return fielderr.New(f+".field", "required with type field (e.g. status.phase)")
		}
		if err := msg.ParsePath(s.Field); err != nil {
			return fielderr.New(f+".field", "%w", err)
		}
	default:
		return fielderr.New(f+".type", "must be %s, got %q", fsmkind.Names(), s.Kind)
	}
	return nil
}
