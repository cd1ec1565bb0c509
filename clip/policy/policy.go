package policy

import (
	"time"

	"github.com/edged-robotics/edged/blob/s3"
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

	// DefaultUploadRate caps the clip upload at 1 MiB/s (8 Mbit/s): a
	// robot's link (Wi-Fi shared with its fleet, LTE) also carries the
	// MQTT uplink and teleoperation, which must not starve behind a
	// clip; at this rate a 25-s clip of two compressed cameras (~50 MB)
	// is uploaded in under a minute, well before the next one.
	DefaultUploadRate = 1 << 20
	// MinUploadRate: slower, one part takes minutes and outlives the
	// timeouts of the stores and proxies on the way.
	MinUploadRate = 64 << 10
	// DefaultUploadPart is the multipart part size: a dropped link
	// resends at most one part (8 s at the default rate).
	DefaultUploadPart = 8 << 20
	// MinUploadPart and MaxUploadPart are S3's bounds of a part (but
	// the last): 5 MiB and 5 GiB.
	MinUploadPart = 5 << 20
	MaxUploadPart = 5 << 30
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
	// Upload is where written clips are uploaded: s3://BUCKET[/PREFIX],
	// the URL form, endpoint and credentials of edged sink --out
	// (blob/s3); each clip at its path in the episode store layout
	// under it, so a sink on that URL lists it with its episode. Empty
	// (the default): clips stay on the robot.
	Upload string
	// UploadRate caps the upload's bandwidth, bytes per second.
	UploadRate int64
	// UploadPart is the size of a multipart upload's parts.
	UploadPart int64
	// KeepUploaded keeps a clip on the robot once its upload is
	// confirmed; false (the default) deletes it then.
	KeepUploaded bool
}

// Default is the stage's defaults: disabled, 20 s before and 5 s after,
// on failed or interrupted episodes once enabled.
func Default() Config {
	return Config{Pre: DefaultPre, Post: DefaultPost, OnFailureOutcome: true, MinInterval: DefaultMinInterval,
		MaxBytes: DefaultMaxBytes, Quality: DefaultQuality, UploadRate: DefaultUploadRate, UploadPart: DefaultUploadPart}
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
	if err := c.validateUpload(); err != nil {
		return err
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

// validateUpload checks the upload settings (the URL's form only: no
// I/O, the store is reached when clips are uploaded).
func (c Config) validateUpload() error {
	if c.Upload != "" {
		if _, _, err := s3.ParseURL(c.Upload); err != nil {
			return fielderr.New("clips.upload", "must be empty (keep clips on the robot) or s3://BUCKET[/PREFIX], got %q", c.Upload)
		}
	}
	switch {
	case c.UploadRate < MinUploadRate:
		return fielderr.New("clips.upload_rate", "must be >= 64KiB (bytes/s; default %d), got %d", int64(DefaultUploadRate), c.UploadRate)
	case c.UploadPart < MinUploadPart || c.UploadPart > MaxUploadPart:
		return fielderr.New("clips.upload_part", "must be 5MiB..5GiB, S3's bounds of a part (default %d bytes), got %d", int64(DefaultUploadPart), c.UploadPart)
	}
	return nil
}
