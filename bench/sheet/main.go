// Command sheetbench measures the CPU time of building one contact sheet
// from 20 JPEG frames with edged's sheet builder, and compares it in the
// same run with the C floor (floor/floor.c), ffmpeg's tile filter over the full
// 30 fps frames, and Go's image/jpeg with golang.org/x/image/draw. It also
// measures raw rgb8 720p -> one tile, allocations per sheet and the tile
// cache for a one-hour episode. scripts/bench-sheet.sh runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
	xdraw "golang.org/x/image/draw"
)

func main() {
	all := flag.String("all", "", "directory of all frames f0001.jpg... at 30 fps (ffmpeg input; every 15th is used for the sheet)")
	floor := flag.String("floor", "", "the compiled floor program")
	iters := flag.Int("n", 30, "sheets per measurement")
	reps := flag.Int("reps", 3, "measurements per contender (the median is reported)")
	cacheHour := flag.Bool("cache-hour", true, "measure the tile cache of a one-hour episode")
	only := flag.String("only", "", "build sheets with this one in-process contender (edged, edged-yuv) for -n sheets and nothing else: for perf or pprof")
	flag.Parse()
	if *only != "" {
		if err := runOnly(*all, *only, *iters); err != nil {
			fmt.Fprintln(os.Stderr, "sheetbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*all, *floor, *iters, *reps, *cacheHour); err != nil {
		fmt.Fprintln(os.Stderr, "sheetbench:", err)
		os.Exit(1)
	}
}

// loadFrames reads every 15th of the 300 frames in allDir: one sheet's.
func loadFrames(allDir string) (paths []string, frames [][]byte, err error) {
	allPaths, _ := filepath.Glob(filepath.Join(allDir, "f*.jpg"))
	sort.Strings(allPaths)
	if len(allPaths) < 300 {
		return nil, nil, fmt.Errorf("want 300 frames in %s, found %d", allDir, len(allPaths))
	}
	for i := 0; i < 300; i += 15 {
		paths = append(paths, allPaths[i])
		b, err := os.ReadFile(allPaths[i])
		if err != nil {
			return nil, nil, err
		}
		frames = append(frames, b)
	}
	return paths, frames, nil
}

// runOnly builds iters sheets with one in-process contender and nothing
// else, so a profiler attached to this process sees that one alone.
func runOnly(allDir, name string, iters int) error {
	_, frames, err := loadFrames(allDir)
	if err != nil {
		return err
	}
	var measure func(int) (time.Duration, error)
	switch name {
	case "edged":
		b, err := newEdgedBench(frames, true)
		if err != nil {
			return err
		}
		defer b.close()
		measure = b.measure
	case "edged-yuv":
		b, err := newYUVBench(frames)
		if err != nil {
			return err
		}
		defer b.close()
		measure = b.measure
	default:
		return fmt.Errorf("-only %q: want edged or edged-yuv", name)
	}
	d, err := measure(iters)
	if err != nil {
		return err
	}
	fmt.Printf("%s %.2f ms/sheet (CPU time, %d sheets)\n", name, ms(d), iters)
	return nil
}

func run(allDir, floor string, iters, reps int, cacheHour bool) error {
	paths, frames, err := loadFrames(allDir)
	if err != nil {
		return err
	}
	r := sheet.DefaultRecipe()
	fmt.Printf("one sheet = %d frames of 1280x720 JPEG -> %dx%d tiles of %d px, quality %d (CPU time, median of %d)\n",
		len(frames), r.Columns, r.Rows, r.TileWidth, r.Quality, reps)

	// The machine is shared: measure the contenders round-robin, reps
	// times, and compare medians, so load changes hit all of them alike.
	edgedB, err := newEdgedBench(frames, true)
	if err != nil {
		return err
	}
	defer edgedB.close()
	cachedB, err := newEdgedBench(frames, false)
	if err != nil {
		return err
	}
	defer cachedB.close()
	yuvB, err := newYUVBench(frames)
	if err != nil {
		return err
	}
	defer yuvB.close()
	type contender struct {
		name    string
		measure func() (time.Duration, error)
		times   []time.Duration
		err     error
	}
	cs := []*contender{
		{name: "edged", measure: func() (time.Duration, error) { return edgedB.measure(iters) }},
		{name: "edged+cache", measure: func() (time.Duration, error) { return cachedB.measure(iters) }},
		{name: "floor", measure: func() (time.Duration, error) { return measureFloor(floor, iters, r, paths) }},
		{name: "edged-yuv", measure: func() (time.Duration, error) { return yuvB.measure(iters) }},
		{name: "floor-yuv", measure: func() (time.Duration, error) { return measureFloor(floor, iters, r, paths, "-yuv") }},
		{name: "ffmpeg", measure: func() (time.Duration, error) { return measureFFmpeg(allDir, r) }},
		{name: "stdlib", measure: func() (time.Duration, error) { return measureStdlib(frames, max(iters/5, 2), r) }},
	}
	if floor == "" {
		cs[2].err = fmt.Errorf("no -floor program")
		cs[4].err = cs[2].err
	}
	for i := 0; i < reps; i++ {
		for _, c := range cs {
			if c.err != nil {
				continue
			}
			settle()
			d, err := c.measure()
			if err != nil {
				c.err = err
				continue
			}
			c.times = append(c.times, d)
		}
	}
	med := map[string]time.Duration{}
	for _, c := range cs {
		if c.err != nil {
			if c.name == "edged" || c.name == "stdlib" {
				return fmt.Errorf("%s: %w", c.name, c.err)
			}
			fmt.Printf("%-34s skipped: %v\n", c.name, c.err)
			continue
		}
		sort.Slice(c.times, func(i, j int) bool { return c.times[i] < c.times[j] })
		med[c.name] = c.times[len(c.times)/2]
	}
	edged := med["edged"]
	fmt.Printf("%-34s %8.2f ms/sheet  %d allocs/sheet  %.1f context switches/sheet  %d bytes\n", "edged (libturbojpeg)", ms(edged), edgedB.allocsPerSheet(), edgedB.ctxswPerSheet(), edgedB.size)
	if d, ok := med["edged+cache"]; ok {
		fmt.Printf("%-34s %8.2f ms/sheet  (%+.0f%%: each tile also kept as JPEG for labeling sheets)\n", "edged with episode tile cache", ms(d), 100*(d.Seconds()/edged.Seconds()-1))
	}
	if d, ok := med["floor"]; ok {
		fmt.Printf("%-34s %8.2f ms/sheet  edged/floor = %.2fx (aim <= 1.0x)\n", "C floor (floor.c, TurboJPEG)", ms(d), edged.Seconds()/d.Seconds())
	}
	if d, ok := med["ffmpeg"]; ok {
		fmt.Printf("%-34s %8.2f ms/sheet  ffmpeg/edged = %.1fx (aim >= 20x)\n", "ffmpeg tile filter, 300 frames", ms(d), d.Seconds()/edged.Seconds())
	}
	if err := printYUV(edged, med, edgedB, yuvB, floor, paths); err != nil {
		return err
	}
	std := med["stdlib"]
	fmt.Printf("%-34s %8.2f ms/sheet  stdlib/edged = %.1fx (aim >= 4x)\n", "Go image/jpeg + x/image/draw", ms(std), std.Seconds()/edged.Seconds())
	printResults(edged, med)

	rawTile, rawAllocs, err := measureRawTile(200)
	if err != nil {
		return err
	}
	fmt.Printf("%-34s %8.3f ms/tile  %d allocs/tile\n", "raw rgb8 1280x720 -> one tile", ms(rawTile), rawAllocs)
	if cacheHour {
		tiles, b, err := measureCacheHour(frames)
		if err != nil {
			return err
		}
		fmt.Printf("%-34s %8.1f MB for %d tiles (%.1f KB/tile)\n", "tile cache, one hour, one camera", float64(b)/1e6, tiles, float64(b)/float64(tiles)/1e3)
	}
	return nil
}

// settle finishes the garbage collection and returns the freed heap to
// the OS before a measurement: the stdlib contender allocates hundreds of
// MB, and the runtime's background GC and scavenger would otherwise bill
// that CPU to whichever contender runs next in this process (edged).
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// printResults prints make bench's RESULT lines (bench/benchtable):
// edged's CPU per sheet against each reference, ratio edged/reference.
// The floor is what the hardware does (aim: reach it); ffmpeg and Go's
// standard library must stay far behind (20x and 4x).
func printResults(edged time.Duration, med map[string]time.Duration) {
	for _, c := range []struct{ ref, name, aim string }{
		{"floor", "sheet-vs-C-floor", "<=1.0"},
		{"ffmpeg", "sheet-vs-ffmpeg", "<=0.05"},
		{"stdlib", "sheet-vs-Go-stdlib", "<=0.25"},
	} {
		d, ok := med[c.ref]
		if !ok {
			fmt.Printf("RESULT %s skipped %s did not run\n", c.name, c.ref)
			continue
		}
		fmt.Printf("RESULT %s %.2fms/sheet %.2fms/sheet %.3f %s\n", c.name, ms(edged), ms(d), edged.Seconds()/d.Seconds(), c.aim)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// contextSwitches counts this process's voluntary and involuntary
// context switches so far, all threads.
func contextSwitches() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw + ru.Nivcsw
}

// edgedBench streams the 20 frames through a ring into one long-lived
// builder, as edged run does.
type edgedBench struct {
	frames  [][]byte
	ring    *ringbuf.Ring
	b       *sheet.Builder
	start   time.Time
	n       int
	size    int
	mallocs uint64
	ctxsw   int64
	sheets  int
	keep    bool   // copy each sheet into last (pixel comparisons, not timed)
	last    []byte // the last sheet when keep
}

func newEdgedBench(frames [][]byte, noCache bool) (*edgedBench, error) {
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 16 << 20, MaxAge: 3 * time.Second})
	if err != nil {
		return nil, err
	}
	e := &edgedBench{frames: frames, ring: ring, start: time.Unix(1776842526, 0)}
	e.b, err = sheet.NewBuilder(sheet.BuilderConfig{Camera: "/bench", Recipe: sheet.DefaultRecipe(), Start: e.start, Source: ring,
		NoTileCache: noCache, Emit: func(s *sheet.Sheet) error {
			e.size = len(s.JPEG)
			if e.keep {
				e.last = append(e.last[:0], s.JPEG...)
			}
			return nil
		}})
	if err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ { // warm up: buffers reach their steady size
		if err := e.sheet(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *edgedBench) close() { e.b.Close() }

func (e *edgedBench) sheet() error {
	for _, f := range e.frames {
		fr := capture.Frame{Stamp: e.start.Add(time.Duration(e.n) * 500 * time.Millisecond), Format: capture.FormatJPEG, Data: f}
		if err := e.ring.Put(&fr); err != nil {
			return err
		}
		if err := e.b.Advance(fr.Stamp); err != nil {
			return err
		}
		e.n++
	}
	return nil
}

func (e *edgedBench) measure(iters int) (time.Duration, error) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0, c0 := cpuTime(), contextSwitches()
	for i := 0; i < iters; i++ {
		if err := e.sheet(); err != nil {
			return 0, err
		}
	}
	d := (cpuTime() - t0) / time.Duration(iters)
	e.ctxsw += contextSwitches() - c0
	runtime.ReadMemStats(&m1)
	e.mallocs += m1.Mallocs - m0.Mallocs
	e.sheets += iters
	return d, nil
}

func (e *edgedBench) allocsPerSheet() uint64 { return e.mallocs / uint64(max(e.sheets, 1)) }

// ctxswPerSheet is the context switches of the whole process per sheet
// while this bench measured: the Go runtime's hand-offs around the long
// TurboJPEG calls.
func (e *edgedBench) ctxswPerSheet() float64 { return float64(e.ctxsw) / float64(max(e.sheets, 1)) }

// measureFloor runs the floor program; flags ("-yuv") go first.
func measureFloor(floor string, iters int, r sheet.Recipe, paths []string, flags ...string) (time.Duration, error) {
	args := append(append(flags, strconv.Itoa(iters), strconv.Itoa(r.TileWidth), strconv.Itoa(r.Quality)), paths...)
	out, err := exec.Command(floor, args...).Output()
	if err != nil {
		return 0, fmt.Errorf("floor: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 1 {
		return 0, fmt.Errorf("floor printed %q", out)
	}
	ns, err := strconv.ParseFloat(f[0], 64)
	return time.Duration(ns), err
}

// measureFFmpeg builds the same sheet with ffmpeg from all 300 frames and
// returns the child's CPU time (user + system).
func measureFFmpeg(dir string, r sheet.Recipe) (time.Duration, error) {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		return 0, err
	}
	out := filepath.Join(os.TempDir(), "sheetbench-ffmpeg.jpg")
	defer os.Remove(out)
	vf := fmt.Sprintf("select='not(mod(n\\,15))',scale=%d:-2:flags=area,tile=%dx%d", r.TileWidth, r.Columns, r.Rows)
	cmd := exec.Command(ff, "-loglevel", "error", "-y", "-framerate", "30", "-i", filepath.Join(dir, "f%04d.jpg"),
		"-vf", vf, "-frames:v", "1", "-q:v", "3", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("ffmpeg: %v: %s", err, b)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// measureStdlib is what a Go programmer would write without TurboJPEG:
// full decode with image/jpeg, x/image/draw bilinear scaling, image/jpeg
// encode.
func measureStdlib(frames [][]byte, iters int, r sheet.Recipe) (time.Duration, error) {
	th := 126
	canvas := image.NewRGBA(image.Rect(0, 0, r.Columns*r.TileWidth, r.Rows*th))
	var buf bytes.Buffer
	t0 := cpuTime()
	for it := 0; it < iters; it++ {
		for i, f := range frames {
			img, err := jpeg.Decode(bytes.NewReader(f))
			if err != nil {
				return 0, err
			}
			x, y := (i%r.Columns)*r.TileWidth, (i/r.Columns)*th
			xdraw.BiLinear.Scale(canvas, image.Rect(x, y, x+r.TileWidth, y+th), img, img.Bounds(), xdraw.Src, nil)
		}
		buf.Reset()
		if err := jpeg.Encode(&buf, canvas, &jpeg.Options{Quality: r.Quality}); err != nil {
			return 0, err
		}
	}
	return (cpuTime() - t0) / time.Duration(iters), nil
}

func measureRawTile(iters int) (time.Duration, uint64, error) {
	const w, h = 1280, 720
	data := make([]byte, w*h*3)
	for i := range data {
		data[i] = byte(i * 7)
	}
	tl, err := sheet.NewTiler(sheetLimits())
	if err != nil {
		return 0, 0, err
	}
	defer tl.Close()
	im := sheet.Image{Format: capture.FormatRaw, Encoding: "rgb8", Width: w, Height: h, Step: 3 * w, Data: data}
	dst, err := tl.RenderTile(nil, 224, 126, im)
	if err != nil {
		return 0, 0, err
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := cpuTime()
	for i := 0; i < iters; i++ {
		if dst, err = tl.RenderTile(dst, 224, 126, im); err != nil {
			return 0, 0, err
		}
	}
	d := (cpuTime() - t0) / time.Duration(iters)
	runtime.ReadMemStats(&m1)
	return d, (m1.Mallocs - m0.Mallocs) / uint64(iters), nil
}

// measureCacheHour feeds 7200 ticks (one hour at 0.5 s) of the real frames
// and reports the builder's tile cache.
func measureCacheHour(frames [][]byte) (int, int, error) {
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 16 << 20, MaxAge: 3 * time.Second})
	if err != nil {
		return 0, 0, err
	}
	start := time.Unix(1776842526, 0)
	b, err := sheet.NewBuilder(sheet.BuilderConfig{Camera: "/bench", Recipe: sheet.DefaultRecipe(), Start: start, Source: ring,
		Emit: func(*sheet.Sheet) error { return nil }})
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	for n := 0; n < 7200; n++ {
		fr := capture.Frame{Stamp: start.Add(time.Duration(n) * 500 * time.Millisecond), Format: capture.FormatJPEG, Data: frames[n%len(frames)]}
		if err := ring.Put(&fr); err != nil {
			return 0, 0, err
		}
		if err := b.Advance(fr.Stamp); err != nil {
			return 0, 0, err
		}
	}
	st := b.Stats()
	return st.CacheTiles, st.CacheBytes, nil
}

func sheetLimits() turbojpeg.Limits { return turbojpeg.DefaultLimits }
