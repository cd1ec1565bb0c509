package policy

import (
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// Defaults of Config, and of the config file's clips section (package
// config takes them from here).
const (
	// DefaultPre is how much before its trigger a clip starts: within
	// the ring's default age (30 s), so the whole window is still held.
	DefaultPre = 20 * time.Second
	// DefaultPost is how long after its trigger a clip goes on.
	DefaultPost = 5 * time.Second
	// DefaultMinInterval: at most one clip per trigger kind this often.
	DefaultMinInterval = time.Minute
	// DefaultMaxBytes is the disk budget of every clip of the store.
	DefaultMaxBytes = 2 << 30
	// DefaultQuality is the JPEG quality raw images are encoded at.
	DefaultQuality = 90
	// MaxWindow bounds pre and post: a clip is read from the rings,
	// which hold seconds, not hours.
	MaxWindow = 10 * time.Minute
	// MinMaxBytes is the smallest budget (a clip of one camera-second).
	MinMaxBytes = 1 << 20
)

// Config is what the clips section sets. Zero is not the default:
// Default is; Validate refuses what the stage cannot run with.
type Config struct {
	Enabled bool
	// Pre and Post are the window [trigger-Pre, trigger+Post].
	Pre, Post time.Duration
	// OnStates are FSM states whose entry triggers a clip.
	OnStates []string
	// OnFailureOutcome triggers a clip when an episode closes failed or
	// interrupted.
	OnFailureOutcome bool
	// OnUnsat triggers a clip when a trace check is judged UNSAT at an
	// episode's close (the window ends at the episode's end).
	OnUnsat bool
	// OnGoalFailure triggers a clip when an actionlib goal of an fsm
	// source of type actionlib ends ABORTED, REJECTED or LOST (its
	// segment's outcome aborted). Off by default: it needs such a source
	// (CheckGoalSources).
	OnGoalFailure bool
	// MinInterval is the least time between two clips of one kind.
	MinInterval time.Duration
	// MaxBytes is the disk budget of all clips; the oldest go first.
	MaxBytes int64
	// Quality of the JPEG raw images are encoded to, 1..100.
	Quality int
}

// Default is the stage's defaults: disabled, 20 s before and 5 s after,
// on failed or interrupted episodes once enabled.
func Default() Config {
	return Config{Pre: DefaultPre, Post: DefaultPost, OnFailureOutcome: true, MinInterval: DefaultMinInterval,
		MaxBytes: DefaultMaxBytes, Quality: DefaultQuality}
}

// Validate reports the first invalid field as a *fielderr.Error naming
// its key in the config file's clips section. No I/O.
func (c Config) Validate() error {
	switch {
	case c.Pre <= 0 || c.Pre > MaxWindow:
		return fielderr.New("clips.pre", "must be in (0, %s] (default %s), got %s", MaxWindow, DefaultPre, c.Pre)
	case c.Post < 0 || c.Post > MaxWindow:
		return fielderr.New("clips.post", "must be in [0, %s] (default %s), got %s", MaxWindow, DefaultPost, c.Post)
	case c.MinInterval < 0:
		return fielderr.New("clips.min_interval", "must be >= 0 (default %s), got %s", DefaultMinInterval, c.MinInterval)
	case c.MaxBytes < MinMaxBytes:
		return fielderr.New("clips.max_bytes", "must be >= 1MiB (default %d bytes), got %d", int64(DefaultMaxBytes), c.MaxBytes)
	case c.Quality < 1 || c.Quality > 100:
		return fielderr.New("clips.quality", "must be 1..100 (default %d), got %d", DefaultQuality, c.Quality)
	}
	for i, s := range c.OnStates {
		if s == "" {
			return fielderr.New("clips.on_states", "state %d is empty: name an FSM state", i)
		}
	}
	return nil
}

// CheckGoalSources reports on_goal_failure switched on where no fsm
// source reads actionlib goals (hasGoalSource false): a trigger that
// could never fire is a mistake in the config, not a quiet no-op.
func (c Config) CheckGoalSources(hasGoalSource bool) error {
	if c.Enabled && c.OnGoalFailure && !hasGoalSource {
		return fielderr.New("clips.on_goal_failure", "no fsm source has type actionlib: add one (fsm[].type: actionlib) or set on_goal_failure: false")
	}
	return nil
}
