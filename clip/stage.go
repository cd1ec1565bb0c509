package clip

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// Kind is what triggered a clip; the rate limit is per kind.
type Kind string

// Trigger kinds.
const (
	KindState   Kind = "state"   // the FSM entered a state of clips.on_states
	KindOutcome Kind = "outcome" // an episode closed aborted or interrupted
	KindRequest Kind = "request" // an operator asked (POST /clip, edged clip, ~snapshot)
	KindUnsat   Kind = "unsat"   // a trace check was judged UNSAT at an episode's close
	KindGoal    Kind = "goal"    // an actionlib goal ended ABORTED, REJECTED or LOST
)

// Trigger is one request for a clip.
type Trigger struct {
	Kind   Kind
	Time   time.Time // on the stream clock; zero: the stage's latest Advance
	Reason string
	// Episode the clip belongs to; zero: the History's open (or last)
	// episode.
	Episode Episode
}

// Reasons a clip was not written, the label of /metrics' skipped count.
const (
	SkipRateLimit = "rate_limit" // one of its kind less than clips.min_interval before
	SkipBudget    = "budget"     // larger than clips.max_bytes alone
	SkipNoEpisode = "no_episode" // no episode to belong to yet
	SkipBusy      = "busy"       // maxPending clips wait already
	SkipShutdown  = "shutdown"   // edged stopped before its window ended
	SkipFailed    = "failed"     // writing it failed (the log says why)
)

// SkipReasons are every Skip* reason, for a metric's labels.
var SkipReasons = []string{SkipRateLimit, SkipBudget, SkipNoEpisode, SkipBusy, SkipShutdown, SkipFailed}

// MaxReasonBytes caps the reason a trigger gives (an operator's text).
const MaxReasonBytes = 1024

// ErrSkipped wraps why a trigger gave no clip (Result.Err).
var ErrSkipped = errors.New("clip: not written")

// settle is how much stream time past its window's end a clip waits:
// frames arrive after their stamp (a camera's latency; a recording's
// messages are in log-time, not stamp, order).
const settle = time.Second

// writerNice is how much lower than the process's the writer thread's
// scheduling priority is (a nice value; doc.go, Priority).
const writerNice = 10

// testHookWriting, when set (by a test, before New), is called on the
// writer goroutine before each clip it writes.
var testHookWriting func()

// maxPending bounds the clips waiting for their window to end.
const maxPending = 8

// Options are a Stage's dependencies.
type Options struct {
	Logger *slog.Logger
	// StoreDir is the store's directory (DATA_DIR/episodes): the disk
	// budget counts the clips of every episode in it.
	StoreDir string
	// Cameras lists the cameras at the time a clip is read.
	Cameras func() []Camera
	// MaxWait bounds how long (wall time) a clip waits for the stream
	// clock to pass its window's end (a camera that stopped); default
	// post + 10 s. It is then written with what there is.
	MaxWait time.Duration
	// ROS2 writes the cameras and joints as ROS 2 messages (ros2msg
	// schemas, cdr), for a robot of ros.version 2; else ROS1.
	ROS2 bool
	// OnWritten, when set, is told of each clip written, on the
	// goroutine that wrote it, before its waiters are released (the
	// pipeline announces it to the sink and hands it to the uploader). It must not call the
	// Stage.
	OnWritten func(Result)
	// Sync writes clips on the caller's goroutine, in Advance and Flush
	// (a replay: deterministic, as fast as the recording is read); no
	// goroutine is started.
	Sync bool
}

// Result is what became of one trigger.
type Result struct {
	Name    string // the file's base name (episode.ClipName)
	Path    string // where it is, once written
	Episode string
	Frames  int // frames written
	Lost    int // frames of the window the rings overwrote while it was written
	Bytes   int64
	SHA256  string // of the file, lowercase hex
	Err     error  // wraps ErrSkipped when refused; see Skipped
	Skipped string
}

// job is one accepted trigger waiting for its window to end.
type job struct {
	trig     Trigger
	name     string
	from, to time.Time
	deadline time.Time // wall time
	done     chan struct{}
	res      Result
}

// Stage writes clips. See doc.go.
type Stage struct {
	cfg     policy.Config
	opts    Options
	log     *slog.Logger
	hist    *History
	enc     *frameEncoder
	dialect dialect

	mu      sync.Mutex
	now     time.Time // the stream clock's latest Advance
	pending []*job
	last    map[Kind]time.Time
	stats   Stats
	closed  bool

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a stage of cfg (validated) and starts its goroutine
// unless opts.Sync. Close stops it.
func New(cfg policy.Config, opts Options) (*Stage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Cameras == nil {
		opts.Cameras = func() []Camera { return nil }
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = cfg.Post + 10*time.Second
	}
	d := ros1
	if opts.ROS2 {
		var err error
		if d, err = ros2Dialect(); err != nil {
			return nil, err
		}
	}
	enc, err := turbojpeg.NewEncoder()
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	s := &Stage{cfg: cfg, opts: opts, log: opts.Logger, enc: &frameEncoder{enc: enc, quality: cfg.Quality}, dialect: d,
		hist: newHistory(cfg.Pre+cfg.Post+historySlack, DefaultHistoryBytes), last: map[Kind]time.Time{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.stats.Skipped = map[string]uint64{}
	s.removeStale()
	if opts.Sync {
		close(s.done)
		s.cancel = func() {}
		return s, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.loop(ctx)
	return s, nil
}

// History is what the stage keeps besides the rings: the pipeline feeds
// it joint samples, transitions, segments and episodes.
func (s *Stage) History() *History { return s.hist }

// Config is the stage's config.
func (s *Stage) Config() policy.Config { return s.cfg }
