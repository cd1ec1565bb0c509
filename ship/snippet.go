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

	// cut serializes ForSheet over its scratch, reused from sheet to
	// sheet; it is taken before mu, never after.
	cut    sync.Mutex
	window []capture.JointSample // samples near the sheet, copied under mu
	times  []sampleTime
	topics []string
	index  nameIndex
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
// The snippet is the caller's; the work is done in the Recorder's
// scratch (held by r.cut), so that a sheet costs a few small allocations
// in steady state, not a copy of the whole ring.
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

	r.cut.Lock()
	defer r.cut.Unlock()
	r.sampleTimes(m, tickTime, from, to)
	r.copyWindow(from.Add(-r.cfg.MaxGap), to.Add(r.cfg.MaxGap))
	defer r.release()
	topics := r.index.build(r.window, r.topics[:0])
	r.topics = topics
	sn.Names = slices.Clone(r.index.names)
	sn.Samples = r.sample(topics, len(sn.Names))
	return sn
}

// release drops the scratch's references to samples, so that it keeps
// none alive the ring has let go.
func (r *Recorder) release() {
	clear(r.window)
	clear(r.index.last)
}

// sampleTime is a time the snippet samples: a tile's tick, or -1 between
// ticks (Config.Rate).
type sampleTime struct {
	tick int64
	t    time.Time
}

// sampleTimes fills r.times with the ticks of m's tiles, and Config.Rate's
// times in [from, to], in time order.
func (r *Recorder) sampleTimes(m *sheet.Meta, tickTime func(int64) time.Time, from, to time.Time) {
	r.times = r.times[:0]
	for _, tl := range m.Tiles {
		r.times = append(r.times, sampleTime{tl.Tick, tickTime(tl.Tick)})
	}
	if r.cfg.Rate > 0 {
		step := time.Duration(float64(time.Second) / r.cfg.Rate)
		for t := from; !t.After(to) && len(r.times) < 65536; t = t.Add(step) {
			r.times = append(r.times, sampleTime{-1, t})
		}
		slices.SortStableFunc(r.times, func(a, b sampleTime) int { return a.t.Compare(b.t) })
	}
}

// copyWindow copies the kept samples stamped in [from, to] into
// r.window, under mu: the only samples a snippet of that span can use,
// so PutJoints waits for a scan, never for the sampling.
func (r *Recorder) copyWindow(from, to time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.window = r.window[:0]
	for _, s := range r.samples {
		if !s.Stamp.Before(from) && !s.Stamp.After(to) {
			r.window = append(r.window, s)
		}
	}
}

// sample is the joints of r.window at each of r.times, NaN where no
// sample of a topic is within MaxGap; one backing array holds every
// value.
func (r *Recorder) sample(topics []string, n int) []wire.JointSample {
	values := make([]float64, 3*n*len(r.times))
	for i := range values {
		values[i] = math.NaN()
	}
	out := make([]wire.JointSample, len(r.times))
	for k, a := range r.times {
		v := values[3*n*k : 3*n*(k+1)]
		js := wire.JointSample{Tick: a.tick, Stamp: a.t.UnixNano(),
			Position: v[:n:n], Velocity: v[n : 2*n : 2*n], Effort: v[2*n : 3*n : 3*n]}
		for ti := range topics {
			s, ok := nearest(r.window, r.index.byTopic[ti], r.index.ordered[ti], a.t, r.cfg.MaxGap)
			if !ok {
				continue
			}
			js.Source = max(js.Source, s.Stamp.UnixNano())
			for i, name := range s.Names {
				j := r.index.pos[name]
				copyAt(js.Position, j, s.Position, i)
				copyAt(js.Velocity, j, s.Velocity, i)
				copyAt(js.Effort, j, s.Effort, i)
			}
		}
		out[k] = js
	}
	return out
}

// Dropped counts joint samples pushed out of the ring (or too large for
// it).
func (r *Recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// nameIndex lists the topics and joint names of a snippet's window and,
// per topic, its samples (their indices in the window), so that sampling
// a time looks at one topic's samples only.
type nameIndex struct {
	names   []string
	pos     map[string]int
	byTopic [][]int32  // per topic: indices into the window, in window order
	ordered []bool     // per topic: its samples' stamps never go back
	last    [][]string // per topic: the names of its last sample indexed
}

// build lists the topics (appended to topics) and joint names of
// samples, in order of first appearance, reusing idx's storage. A sample
// naming the same joints as its topic's previous one (the usual case: a
// publisher's names do not change) costs no map lookup.
func (idx *nameIndex) build(samples []capture.JointSample, topics []string) []string {
	if idx.pos == nil {
		idx.pos = map[string]int{}
	}
	clear(idx.pos)
	idx.names = idx.names[:0]
	idx.byTopic = idx.byTopic[:0]
	idx.ordered = idx.ordered[:0]
	idx.last = idx.last[:0]
	ti := -1
	for i, s := range samples {
		if ti < 0 || topics[ti] != s.Topic {
			ti = slices.Index(topics, s.Topic)
		}
		if ti < 0 {
			ti = len(topics)
			topics = append(topics, s.Topic)
			idx.addTopic()
		}
		if seen := idx.byTopic[ti]; len(seen) > 0 && s.Stamp.Before(samples[seen[len(seen)-1]].Stamp) {
			idx.ordered[ti] = false
		}
		idx.byTopic[ti] = append(idx.byTopic[ti], int32(i))
		if slices.Equal(s.Names, idx.last[ti]) {
			continue
		}
		idx.last[ti] = s.Names
		for _, n := range s.Names {
			if _, ok := idx.pos[n]; !ok && len(idx.names) < 4096 {
				idx.pos[n] = len(idx.names)
				idx.names = append(idx.names, n)
			}
		}
	}
	return topics
}

// addTopic appends a topic's entries, reusing the storage of a previous
// window's.
func (idx *nameIndex) addTopic() {
	n := len(idx.byTopic)
	if n < cap(idx.byTopic) {
		idx.byTopic = idx.byTopic[:n+1]
		idx.byTopic[n] = idx.byTopic[n][:0]
	} else {
		idx.byTopic = append(idx.byTopic, nil)
	}
	idx.ordered = append(idx.ordered, true)
	idx.last = append(idx.last, nil)
}

// nearest is the sample among samples[at...] (one topic's, in window
// order) nearest t within maxGap; of equally near ones the first. When
// their stamps never go back (ordered) it is a binary search: the first
// at or after t, or the first of those stamped like the last before t.
func nearest(samples []capture.JointSample, at []int32, ordered bool, t time.Time, maxGap time.Duration) (capture.JointSample, bool) {
	if !ordered {
		return nearestScan(samples, at, t, maxGap)
	}
	i, _ := slices.BinarySearchFunc(at, t, func(j int32, t time.Time) int { return samples[j].Stamp.Compare(t) })
	best, bestGap := -1, maxGap+1
	if i > 0 {
		before := samples[at[i-1]].Stamp
		first, _ := slices.BinarySearchFunc(at[:i], before, func(j int32, t time.Time) int { return samples[j].Stamp.Compare(t) })
		best, bestGap = first, t.Sub(before)
	}
	if i < len(at) {
		if gap := samples[at[i]].Stamp.Sub(t); gap < bestGap {
			best, bestGap = i, gap
		}
	}
	if best < 0 || bestGap > maxGap {
		return capture.JointSample{}, false
	}
	return samples[at[best]], true
}

// nearestScan is nearest for samples whose stamps go back somewhere.
func nearestScan(samples []capture.JointSample, at []int32, t time.Time, maxGap time.Duration) (capture.JointSample, bool) {
	var best capture.JointSample
	bestGap := maxGap + 1
	for _, j := range at {
		s := samples[j]
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

func copyAt(dst []float64, j int, src []float64, i int) {
	if j < len(dst) && i < len(src) {
		dst[j] = src[i]
	}
}
