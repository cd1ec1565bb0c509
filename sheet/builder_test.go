package sheet

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

type sent struct {
	at   time.Time
	data []byte
}

// expectedFrame is the brute-force choice for tick t: nearest stamp in
// [t-half, t+half), earlier on a tie.
func expectedFrame(frames []sent, t time.Time, half time.Duration) (time.Time, bool) {
	var best time.Time
	found := false
	for _, f := range frames {
		d := f.at.Sub(t)
		if d < -half || d >= half {
			continue
		}
		if !found || absDur(d) < absDur(best.Sub(t)) || (absDur(d) == absDur(best.Sub(t)) && f.at.Before(best)) {
			best, found = f.at, true
		}
	}
	return best, found
}

func TestGridJitterDropsOutOfOrder(t *testing.T) {
	img := testJPEG(t, 32, 18, [3]byte{200, 30, 30})
	rng := rand.New(rand.NewSource(7))
	var frames []sent
	for i := 0; i < 360; i++ { // 12 s at 30 fps
		at := epoch.Add(time.Duration(i)*time.Second/30 + time.Duration(rng.Intn(10000)-5000)*time.Microsecond)
		if s := at.Sub(epoch); s > 3200*time.Millisecond && s < 3800*time.Millisecond {
			continue // dropped: tick 7 (3.5 s) has no frame
		}
		frames = append(frames, sent{at, img})
	}
	// Deliver out of order: swap neighbours, and delay a few frames by
	// 300 ms (within the 500 ms grace).
	order := append([]sent(nil), frames...)
	for i := 0; i+1 < len(order); i += 7 {
		order[i], order[i+1] = order[i+1], order[i]
	}
	for _, i := range []int{50, 130, 200} {
		late := order[i]
		copy(order[i:], order[i+1:i+10])
		order[i+9] = late
	}
	ring := newRing(t, ringbuf.Config{MaxAge: 5 * time.Second})
	var c collector
	r := DefaultRecipe()
	r.WaitGrace = true // frames arrive out of order: wait the grace for them
	b := newTestBuilder(t, ring, r, &c)
	newest := epoch
	for _, f := range order {
		fr := jpegFrame(f.data, f.at)
		if err := ring.Put(&fr); err != nil {
			t.Fatal(err)
		}
		if f.at.After(newest) {
			newest = f.at
		}
		if err := b.Advance(newest); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.sheets) != 1 {
		t.Fatalf("%d sheets before Finish, want 1 (the second is open)", len(c.sheets))
	}
	if err := b.Finish(newest); err != nil {
		t.Fatal(err)
	}
	if len(c.sheets) != 2 {
		t.Fatalf("%d sheets, want 2", len(c.sheets))
	}
	s1, s2 := c.sheets[0].Meta, c.sheets[1].Meta
	if s1.Index != 1 || s2.Index != 2 || len(s1.Tiles) != 20 || len(s2.Tiles) != 4 {
		t.Fatalf("sheets %d (%d tiles), %d (%d tiles)", s1.Index, len(s1.Tiles), s2.Index, len(s2.Tiles))
	}
	if s1.Width != 1120 || s1.Height != 504 || s2.Width != 896 || s2.Height != 126 || s2.Rows != 1 || s2.Columns != 4 {
		t.Fatalf("geometry %dx%d and %dx%d (%dx%d)", s1.Width, s1.Height, s2.Width, s2.Height, s2.Columns, s2.Rows)
	}
	for _, tm := range append(s1.Tiles, s2.Tiles...) {
		tick := epoch.Add(time.Duration(tm.Tick) * r.Interval)
		if tm.Seconds != float64(tm.Tick)*0.5 {
			t.Fatalf("tick %d at %v s", tm.Tick, tm.Seconds)
		}
		want, ok := expectedFrame(frames, tick, r.Interval/2)
		if tm.Placeholder == ok {
			t.Fatalf("tick %d: placeholder %v, frame expected %v", tm.Tick, tm.Placeholder, ok)
		}
		if ok && tm.Stamp != ROSTimeOf(want) {
			t.Fatalf("tick %d: used %v, nearest is %v", tm.Tick, tm.Stamp.Time().Sub(epoch), want.Sub(epoch))
		}
	}
	if !s1.Tiles[7].Placeholder {
		t.Fatal("tick 7 (dropped frames) is not a placeholder")
	}
	if st := b.Stats(); st.Ticks != 24 || st.Placeholders != 1 || st.Sheets != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestOneHourGridExact streams an hour at 10 fps with jitter: the grid
// must stay exact and every tick must pick the frame nearest to it.
func TestOneHourGridExact(t *testing.T) {
	if testing.Short() {
		t.Skip("one-hour stream skipped in -short")
	}
	img := testJPEG(t, 32, 18, [3]byte{30, 200, 30})
	ring := newRing(t, ringbuf.Config{MaxAge: 3 * time.Second})
	sheets, tiles := 0, 0
	var lastErr error
	var b *Builder
	b, err := NewBuilder(BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: epoch, Source: ring, Emit: func(s *Sheet) error {
		sheets++
		if s.Meta.Index != sheets {
			lastErr = errors.New("sheet index skipped")
		}
		for _, tm := range s.Meta.Tiles {
			tiles++
			if tm.Placeholder || tm.Seconds != float64(tm.Tick)/2 || math.Abs(tm.FrameSeconds-tm.Seconds) > 0.003 {
				lastErr = errors.New("tile off the grid")
			}
			if tm.Stamp.Time().Sub(b.TickTime(tm.Tick)).Abs() > 3*time.Millisecond {
				lastErr = errors.New("tile stamp off the grid")
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rng := rand.New(rand.NewSource(3))
	const n = 3600 * 10
	var last time.Time
	for i := 0; i < n; i++ {
		last = epoch.Add(time.Duration(i)*100*time.Millisecond + time.Duration(rng.Intn(4000)-2000)*time.Microsecond)
		f := jpegFrame(img, last)
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
		if err := b.Advance(last); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(last); err != nil {
		t.Fatal(err)
	}
	if lastErr != nil {
		t.Fatal(lastErr)
	}
	if sheets != 360 || tiles != 7200 {
		t.Fatalf("%d sheets, %d tiles; want 360 and 7200", sheets, tiles)
	}
	st := b.Stats()
	t.Logf("one hour: %d tiles cached in %.1f MB (synthetic flat frames; see the benchmark for real footage)", st.CacheTiles, float64(st.CacheBytes)/1e6)
	ls, err := b.LabelSheet(Segment{Index: 7, Start: epoch.Add(1800 * time.Second), End: epoch.Add(1810 * time.Second)})
	if err != nil || len(ls.Meta.Tiles) != 5 || ls.Meta.Tiles[0].Tick != 3602 {
		t.Fatalf("label sheet: %v", err)
	}
}

func TestBadFramesArePlaceholders(t *testing.T) {
	good := testJPEG(t, 64, 36, [3]byte{90, 90, 200})
	huge := append([]byte(nil), good...)
	for i := 2; i+9 < len(huge); i++ { // declare 60000 x 60000 in SOF
		if huge[i] == 0xFF && huge[i+1] == 0xC0 {
			huge[i+5], huge[i+6], huge[i+7], huge[i+8] = 0xEA, 0x60, 0xEA, 0x60
			break
		}
	}
	ring := newRing(t, ringbuf.Config{})
	frames := []capture.Frame{
		jpegFrame(good, epoch),
		jpegFrame(nil, epoch.Add(500*time.Millisecond)),
		jpegFrame(good[:len(good)/2], epoch.Add(1000*time.Millisecond)),
		jpegFrame([]byte("garbage garbage garbage"), epoch.Add(1500*time.Millisecond)),
		jpegFrame(huge, epoch.Add(2000*time.Millisecond)),
		{Stamp: epoch.Add(2500 * time.Millisecond), Format: capture.FormatRaw, Encoding: "rgb8", Width: 4, Height: 4, Step: 12, Data: make([]byte, 47)},
		{Stamp: epoch.Add(3000 * time.Millisecond), Format: capture.FormatRaw, Encoding: "32FC1", Width: 4, Height: 4, Step: 16, Data: make([]byte, 64)},
		{Stamp: epoch.Add(3500 * time.Millisecond), Format: capture.FormatRaw, Encoding: "32FC1", Width: 4, Height: 4, Step: 16, Data: make([]byte, 64)},
		{Stamp: epoch.Add(4000 * time.Millisecond), Format: capture.FormatPNG, Data: []byte("\x89PNG\r\n\x1a\nbroken")},
		{Stamp: epoch.Add(4500 * time.Millisecond), Format: capture.FormatRaw, Encoding: "mono8", Width: 1 << 20, Height: 1 << 20, Step: 1 << 20, Data: make([]byte, 16)},
		jpegFrame(good, epoch.Add(5000*time.Millisecond)),
	}
	for i := range frames {
		if err := ring.Put(&frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	var c collector
	b, err := NewBuilder(BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: epoch, Source: ring, Emit: c.emit,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Finish(epoch.Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	st := b.Stats()
	if st.Tiles != 2 || st.Placeholders != 9 || st.Corrupt != 4 || st.TooLarge != 2 || st.BadLayout != 1 || st.Unsupported != 2 {
		t.Fatalf("stats %+v", st)
	}
	if n := strings.Count(logs.String(), "32FC1"); n != 1 {
		t.Fatalf("unsupported encoding logged %d times, want once:\n%s", n, logs.String())
	}
	tiles := c.sheets[0].Meta.Tiles
	if tiles[0].Placeholder || !tiles[1].Placeholder || tiles[10].Placeholder {
		t.Fatalf("tiles %+v", tiles)
	}
}

func TestNoFramesAtAll(t *testing.T) {
	var c collector
	b := newTestBuilder(t, newRing(t, ringbuf.Config{}), DefaultRecipe(), &c)
	if err := b.Finish(epoch.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	m := c.sheets[0].Meta
	if len(m.Tiles) != 5 || m.TileHeight != 168 || m.Width != 1120 || !m.Tiles[4].Placeholder {
		t.Fatalf("meta %+v", m)
	}
}

func TestLabelSheetAndWriter(t *testing.T) {
	ring := newRing(t, ringbuf.Config{})
	colours := [][3]byte{{250, 0, 0}, {0, 250, 0}, {0, 0, 250}}
	dir := t.TempDir()
	w, err := NewDirWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: epoch, Source: ring, Emit: w.Write})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := 0; i < 30; i++ { // 15 s at 2 fps, colour changes every 5 s
		f := jpegFrame(testJPEG(t, 64, 48, colours[i/10]), epoch.Add(time.Duration(i)*500*time.Millisecond))
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
		if err := b.Advance(f.Stamp); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(epoch.Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// Segment [5 s, 9.9 s): ticks 10..19, all green, in 3 + 2 tiles.
	ls, err := b.LabelSheet(Segment{Index: 2, Start: epoch.Add(5 * time.Second), End: epoch.Add(9900 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, tm := range ls.Meta.Tiles {
		got = append(got, tm.Tick)
	}
	if len(got) != 5 || got[0] != 11 || got[4] != 19 || ls.Meta.Width != 3*224 || ls.Meta.Height != 2*168 || ls.Meta.Kind != "label" ||
		ls.Meta.Index != 2 || ls.Meta.Segment == nil || ls.Meta.Segment.StartSeconds != 5 || ls.Meta.Segment.EndSeconds != 9.9 {
		t.Fatalf("label sheet ticks %v meta %+v", got, ls.Meta)
	}
	tl, _ := NewTiler(turbojpeg.Limits{})
	defer tl.Close()
	_, _, pix, err := tl.dec.Decode(ls.JPEG, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // centre of each tile is green
		p := pix[(((i/3)*168+84)*ls.Meta.Width+(i%3)*224+112)*3:]
		if p[1] < 200 || p[0] > 40 {
			t.Fatalf("label tile %d centre %v, want green", i, p[:3])
		}
	}
	if after, err := b.LabelSheet(Segment{Index: 3, Start: epoch.Add(100 * time.Second), End: epoch.Add(200 * time.Second)}); err != nil ||
		after.Meta.Note == "" || !after.Meta.Tiles[0].Placeholder {
		t.Fatalf("label sheet after the episode: %v %+v", err, after)
	}
	if err := w.Write(ls); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	want := []string{"label-0002.jpg", "label-0002.json", "sheet-0001.jpg", "sheet-0001.json", "sheet-0002.jpg", "sheet-0002.json"}
	if len(names) != len(want) {
		t.Fatalf("files %v, want %v (no temp files)", names, want)
	}
	for i, n := range names {
		if filepath.Base(n) != want[i] {
			t.Fatalf("files %v, want %v", names, want)
		}
	}
	var m Meta
	js, _ := os.ReadFile(filepath.Join(dir, "sheet-0002.json"))
	if err := json.Unmarshal(js, &m); err != nil || m.Index != 2 || len(m.Tiles) != 11 || m.Tiles[10].Seconds != 15 {
		t.Fatalf("sheet-0002.json: %v %+v", err, m)
	}
}

func TestClockJumpSkips(t *testing.T) {
	ring := newRing(t, ringbuf.Config{})
	var c collector
	b := newTestBuilder(t, ring, DefaultRecipe(), &c)
	img := testJPEG(t, 32, 18, [3]byte{9, 9, 9})
	for i := 0; i < 6; i++ {
		f := jpegFrame(img, epoch.Add(time.Duration(i)*500*time.Millisecond))
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Advance(epoch.Add(24 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	st := b.Stats()
	// The open sheet (ticks 0..) is emitted, then sampling resumes at the
	// sheet holding the new time and catches up only to it.
	if st.Skipped == 0 || st.Sheets > 3 || st.Ticks > 60 {
		t.Fatalf("stats after a 24 h jump: %+v", st)
	}
	if first := c.sheets[0].Meta; first.Index != 1 || len(first.Tiles) != 20 || first.Tiles[5].Placeholder || !first.Tiles[6].Placeholder {
		t.Fatalf("first sheet tiles %+v", c.sheets[0].Meta.Tiles)
	}
	if _, err := b.LabelSheet(Segment{Start: epoch, End: epoch.Add(2 * time.Second)}); err != nil {
		t.Fatalf("label sheet over the cache with a hole: %v", err)
	}
}

func TestCorruptFrameFallsBackToNextNearest(t *testing.T) {
	good := testJPEG(t, 32, 18, [3]byte{0, 0, 250})
	ring := newRing(t, ringbuf.Config{})
	for _, f := range []capture.Frame{
		jpegFrame(good[:10], epoch),                           // nearest to tick 0, corrupt
		jpegFrame([]byte{}, epoch.Add(50*time.Millisecond)),   // next, empty
		jpegFrame(good, epoch.Add(100*time.Millisecond)),      // third: used
		jpegFrame(good[:20], epoch.Add(500*time.Millisecond)), // tick 1: only a corrupt frame
	} {
		f := f
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
	}
	var c collector
	b := newTestBuilder(t, ring, DefaultRecipe(), &c)
	if err := b.Finish(epoch.Add(500 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	tiles := c.sheets[0].Meta.Tiles
	if tiles[0].Placeholder || tiles[0].FrameSeconds != 0.1 || !tiles[1].Placeholder {
		t.Fatalf("tiles %+v", tiles)
	}
	if st := b.Stats(); st.Corrupt != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSheetSteadyStateAllocs: once buffers have grown, a sheet (20 ticks
// of JPEG frames through the ring, decode, tiles, badges, encode, Emit)
// allocates nothing.
func TestSheetSteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count skipped in -short")
	}
	if turbojpeg.Backend == "purego" {
		t.Skip("the purego fallback (image/jpeg) allocates per frame; the zero-allocation claim is libjpeg-turbo's")
	}
	img := testJPEG(t, 640, 360, [3]byte{120, 60, 30})
	ring := newRing(t, ringbuf.Config{MaxBytes: 8 << 20, MaxAge: 3 * time.Second})
	b, err := NewBuilder(BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: epoch, Source: ring,
		NoTileCache: true, Emit: func(*Sheet) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	n := 0
	sheet := func() {
		for i := 0; i < 20; i++ {
			f := jpegFrame(img, epoch.Add(time.Duration(n)*500*time.Millisecond))
			if err := ring.Put(&f); err != nil {
				t.Fatal(err)
			}
			if err := b.Advance(f.Stamp); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	sheet()
	sheet()
	if a := testing.AllocsPerRun(3, sheet); a != 0 {
		t.Fatalf("%v allocations per sheet in steady state", a)
	}
}

// TestSettledTicksFinalizeEarly: with frames in order, a tick is final as
// soon as a later frame shows nothing nearer can come, so a sheet is out
// about one frame after its last tick instead of interval/2 + grace
// later; and it picks the same frames as waiting the grace would.
func TestSettledTicksFinalizeEarly(t *testing.T) {
	img := testJPEG(t, 32, 18, [3]byte{30, 200, 30})
	rng := rand.New(rand.NewSource(11))
	var frames []sent
	for i := 0; i < 330; i++ { // 11 s at 30 fps, in order, +-5 ms jitter
		at := epoch.Add(time.Duration(i)*time.Second/30 + time.Duration(rng.Intn(10000)-5000)*time.Microsecond)
		frames = append(frames, sent{at, img})
	}
	lastTick := epoch.Add(19 * 500 * time.Millisecond) // the first sheet's last tick
	cases := []struct {
		name      string
		waitGrace bool
		by        time.Duration // first sheet out by lastTick + by
	}{
		{"settled", false, 60 * time.Millisecond},
		{"wait grace", true, DefaultRecipe().Interval/2 + DefaultRecipe().Grace + 40*time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ring := newRing(t, ringbuf.Config{MaxAge: 5 * time.Second})
			var c collector
			r := DefaultRecipe()
			r.WaitGrace = tc.waitGrace
			b := newTestBuilder(t, ring, r, &c)
			var out time.Time
			for _, f := range frames {
				fr := jpegFrame(f.data, f.at)
				if err := ring.Put(&fr); err != nil {
					t.Fatal(err)
				}
				if err := b.Advance(f.at); err != nil {
					t.Fatal(err)
				}
				if out.IsZero() && len(c.sheets) == 1 {
					out = f.at
				}
			}
			if out.IsZero() || out.Sub(lastTick) > tc.by {
				t.Fatalf("first sheet out %v after its last tick, want within %v", out.Sub(lastTick), tc.by)
			}
			for _, tm := range c.sheets[0].Meta.Tiles {
				want, _ := expectedFrame(frames, epoch.Add(time.Duration(tm.Tick)*r.Interval), r.Interval/2)
				if tm.Placeholder || tm.Stamp != ROSTimeOf(want) {
					t.Fatalf("tick %d: used %v, nearest is %v", tm.Tick, tm.Stamp.Time().Sub(epoch), want.Sub(epoch))
				}
			}
		})
	}
}
