package ship

import (
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// SnippetConfig configures a Recorder; zero values take the defaults.
type SnippetConfig struct {
	// MaxSamples kept (all joint topics together). Default 8192 (about
	// 80 s at 100 Hz, several sheets).
	MaxSamples int
	// MaxBytes bounds the memory the kept samples hold (names and
	// values, SampleBytes), whatever a peer publishes: the oldest go
	// first, and a sample larger than the whole budget is not kept
	// (both counted in Dropped). Default DefaultSnippetBytes (64 MiB:
	// 8192 samples of 100 joints take 13 MiB).
	MaxBytes int
	// Rate adds samples at this many per second between the first and
	// last tick, besides the ticks. Default 0: ticks only.
	Rate float64
	// MaxGap: a joint message farther than this from the time sampled is
	// not used (NaN instead). Default 1s.
	MaxGap time.Duration
}

// DefaultSnippetBytes is SnippetConfig.MaxBytes' default.
const DefaultSnippetBytes = 64 << 20

func (c SnippetConfig) withDefaults() SnippetConfig {
	if c.MaxSamples <= 0 {
		c.MaxSamples = 8192
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultSnippetBytes
	}
	if c.MaxGap <= 0 {
		c.MaxGap = time.Second
	}
	return c
}

// Recorder keeps recent joint states and cuts the state snippet of a
// sheet's window from them (wire.Snippet): joints sampled at the sheet's
// ticks. A snippet is an observation, like the sheet it goes with: robot
// state only, never the FSM's states (see doc.go).
//
// PutJoints is called from capture's goroutines (a mutex and a bounded
// ring, never blocking on I/O); ForSheet when a sheet is done. Memory is
// bounded by SnippetConfig.MaxSamples and MaxBytes; the oldest samples go
// first. Safe for concurrent use.
type Recorder struct {
	cfg     SnippetConfig
	mu      sync.Mutex
	samples []capture.JointSample // oldest first; the front is cut, the back appended
	bytes   int                   // SampleBytes of samples
	dropped uint64
}

// NewRecorder returns an empty Recorder.
func NewRecorder(cfg SnippetConfig) *Recorder {
	cfg = cfg.withDefaults()
	return &Recorder{cfg: cfg}
}

// PutJoints keeps s (its slices are kept, not copied: capture hands
// them over), pushing out the oldest samples past MaxSamples or
// MaxBytes.
func (r *Recorder) PutJoints(s capture.JointSample) {
	n := SampleBytes(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.cfg.MaxBytes {
		r.dropped++
		return
	}
	for len(r.samples) > 0 && (len(r.samples) >= r.cfg.MaxSamples || r.bytes+n > r.cfg.MaxBytes) {
		r.bytes -= SampleBytes(r.samples[0])
		r.samples[0] = capture.JointSample{} // let its slices go
		r.samples = r.samples[1:]
		r.dropped++
	}
	r.samples = append(r.samples, s)
	r.bytes += n
}

// SampleBytes is the memory a kept joint sample holds: the struct, its
// names (string headers, and bytes as the allocator rounds them: 16 at
// least) and its values. It errs high rather than low.
func SampleBytes(s capture.JointSample) int {
	n := int(unsafe.Sizeof(s)) + len(s.Topic)
	for _, name := range s.Names {
		n += int(unsafe.Sizeof(name)) + max(16, (len(name)+15)&^15)
	}
	return n + 8*(len(s.Position)+len(s.Velocity)+len(s.Effort))
}

// Bytes is the memory the kept samples hold (SampleBytes).
func (r *Recorder) Bytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// ForSheet returns the snippet of sheet m of episode: joints at every
// tile's tick (and at Config.Rate between the first and the last tick).
func (r *Recorder) ForSheet(episode string, m *sheet.Meta) *wire.Snippet {
	interval := time.Duration(m.IntervalSeconds * float64(time.Second))
	start := m.EpisodeStart.Time()
	sn := &wire.Snippet{Episode: episode, Camera: m.CameraID(), SheetIndex: int64(m.Index),
		EpisodeStart: start.UnixNano(), Interval: int64(interval)}
	if len(m.Tiles) == 0 {
		return sn
	}
	sn.FirstTick, sn.LastTick = m.Tiles[0].Tick, m.Tiles[len(m.Tiles)-1].Tick
	tickTime := func(k int64) time.Time { return start.Add(time.Duration(k) * interval) }
	from, to := tickTime(sn.FirstTick), tickTime(sn.LastTick)

	type at struct {
		tick int64
		t    time.Time
	}
	var times []at
	for _, tl := range m.Tiles {
		times = append(times, at{tl.Tick, tickTime(tl.Tick)})
	}
	if r.cfg.Rate > 0 {
		step := time.Duration(float64(time.Second) / r.cfg.Rate)
		for t := from; !t.After(to) && len(times) < 65536; t = t.Add(step) {
			times = append(times, at{-1, t})
		}
		slices.SortStableFunc(times, func(a, b at) int { return a.t.Compare(b.t) })
	}

	r.mu.Lock()
	samples := r.ordered()
	r.mu.Unlock()

	topics, index := names(samples, from.Add(-r.cfg.MaxGap), to.Add(r.cfg.MaxGap))
	sn.Names = index.names
	for _, a := range times {
		js := wire.JointSample{Tick: a.tick, Stamp: a.t.UnixNano(),
			Position: nans(len(sn.Names)), Velocity: nans(len(sn.Names)), Effort: nans(len(sn.Names))}
		for _, topic := range topics {
			s, ok := nearest(samples, topic, a.t, r.cfg.MaxGap)
			if !ok {
				continue
			}
			js.Source = max(js.Source, s.Stamp.UnixNano())
			for i, n := range s.Names {
				j := index.pos[n]
				copyAt(js.Position, j, s.Position, i)
				copyAt(js.Velocity, j, s.Velocity, i)
				copyAt(js.Effort, j, s.Effort, i)
			}
		}
		sn.Samples = append(sn.Samples, js)
	}
	return sn
}

// Dropped counts joint samples pushed out of the ring (or too large for
// it).
func (r *Recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

func (r *Recorder) ordered() []capture.JointSample {
	return slices.Clone(r.samples)
}

type nameIndex struct {
	names []string
	pos   map[string]int
}

// names lists the topics and joint names seen in [from, to], in order of
// first appearance.
func names(samples []capture.JointSample, from, to time.Time) ([]string, nameIndex) {
	idx := nameIndex{pos: map[string]int{}}
	var topics []string
	for _, s := range samples {
		if s.Stamp.Before(from) || s.Stamp.After(to) {
			continue
		}
		if !slices.Contains(topics, s.Topic) {
			topics = append(topics, s.Topic)
		}
		for _, n := range s.Names {
			if _, ok := idx.pos[n]; !ok && len(idx.names) < 4096 {
				idx.pos[n] = len(idx.names)
				idx.names = append(idx.names, n)
			}
		}
	}
	return topics, idx
}

func nearest(samples []capture.JointSample, topic string, t time.Time, maxGap time.Duration) (capture.JointSample, bool) {
	var best capture.JointSample
	bestGap := maxGap + 1
	for _, s := range samples {
		if s.Topic != topic {
			continue
		}
		gap := s.Stamp.Sub(t)
		if gap < 0 {
			gap = -gap
		}
		if gap < bestGap {
			best, bestGap = s, gap
		}
	}
	return best, bestGap <= maxGap
}

func nans(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

func copyAt(dst []float64, j int, src []float64, i int) {
	if j < len(dst) && i < len(src) {
		dst[j] = src[i]
	}
}
