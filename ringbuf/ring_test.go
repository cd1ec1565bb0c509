package ringbuf

import (
	"bytes"
	"errors"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
)

var t0 = time.Unix(1776842526, 0)

// frame returns a frame stamped t0+ms whose data is size bytes of a
// pattern derived from id.
func frame(id, ms, size int) capture.Frame {
	d := make([]byte, size)
	for i := range d {
		d[i] = byte(id*7 + i)
	}
	return capture.Frame{Topic: "/cam", Stamp: t0.Add(time.Duration(ms) * time.Millisecond), Format: capture.FormatJPEG,
		FrameID: frameID, Data: d}
}

// frameID is the header.frame_id of the test frames.
const frameID = "cam_high_optical_frame"

// Every lookup's Meta carries the frame's header.frame_id (a clip
// writes it back).
func TestMetaCarriesFrameID(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 1 << 10})
	put(t, r, 1, 0, 10)
	put(t, r, 2, 10, 10)
	var got []string
	for _, m := range r.Range(t0, t0.Add(time.Second), nil) {
		got = append(got, m.FrameID)
	}
	latest, _, _ := r.Latest(nil)
	near, _, _ := r.Nearest(t0, time.Second, nil)
	before, _, _ := r.AtOrBefore(t0, nil)
	got = append(got, latest.FrameID, near.FrameID, before.FrameID)
	for i, id := range got {
		if id != frameID {
			t.Errorf("lookup %d: FrameID %q, want %q", i, id, frameID)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d lookups found a frame, want 5", len(got))
	}
}

// mustNew builds a ring also below MinBytes (the eviction tests use
// rings of a few bytes); New's own rules are TestValidate's.
func mustNew(t testing.TB, c Config) *Ring {
	t.Helper()
	c = c.WithDefaults()
	if c.MaxBytes < 0 || c.MaxAge < 0 || c.MaxFrames < 0 {
		t.Fatalf("invalid test ring %+v", c)
	}
	return newRing(c)
}

func put(t testing.TB, r *Ring, id, ms, size int) {
	t.Helper()
	f := frame(id, ms, size)
	if err := r.Put(&f); err != nil {
		t.Fatal(err)
	}
}

func ms(m Meta) int { return int(m.Stamp.Sub(t0) / time.Millisecond) }

func TestLookups(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 1000, MaxAge: time.Hour, MaxFrames: 16})
	// Out of order on purpose: 0, 100, 300, 200, 500.
	for i, at := range []int{0, 100, 300, 200, 500} {
		put(t, r, i, at, 10)
	}
	tests := []struct {
		name   string
		lookup func() (Meta, []byte, bool)
		wantMs int // -1: not found
	}{
		{"at-or-before exact", func() (Meta, []byte, bool) { return r.AtOrBefore(t0.Add(200*time.Millisecond), nil) }, 200},
		{"at-or-before between", func() (Meta, []byte, bool) { return r.AtOrBefore(t0.Add(450*time.Millisecond), nil) }, 300},
		{"at-or-before too early", func() (Meta, []byte, bool) { return r.AtOrBefore(t0.Add(-time.Millisecond), nil) }, -1},
		{"nearest after", func() (Meta, []byte, bool) { return r.Nearest(t0.Add(480*time.Millisecond), 50*time.Millisecond, nil) }, 500},
		{"nearest tie takes earlier", func() (Meta, []byte, bool) { return r.Nearest(t0.Add(250*time.Millisecond), 100*time.Millisecond, nil) }, 200},
		{"nearest window excludes end", func() (Meta, []byte, bool) { return r.Nearest(t0.Add(400*time.Millisecond), 100*time.Millisecond, nil) }, 300},
		{"nearest none", func() (Meta, []byte, bool) { return r.Nearest(t0.Add(400*time.Millisecond), 50*time.Millisecond, nil) }, -1},
		{"nearest except", func() (Meta, []byte, bool) {
			return r.NearestExcept(t0.Add(480*time.Millisecond), 300*time.Millisecond, []uint64{5}, nil)
		}, 300},
		{"latest is last put", func() (Meta, []byte, bool) { return r.Latest(nil) }, 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, data, ok := tc.lookup()
			if tc.wantMs < 0 {
				if ok {
					t.Fatalf("found %d ms, want none", ms(m))
				}
				return
			}
			if !ok || ms(m) != tc.wantMs {
				t.Fatalf("got %d ms (ok=%v), want %d", ms(m), ok, tc.wantMs)
			}
			want := frame(int(m.Seq-1), 0, 10).Data
			if !bytes.Equal(data, want) {
				t.Fatalf("data of seq %d corrupted", m.Seq)
			}
		})
	}
	got := r.Range(t0.Add(100*time.Millisecond), t0.Add(300*time.Millisecond), nil)
	if len(got) != 3 || ms(got[0]) != 100 || ms(got[1]) != 300 || ms(got[2]) != 200 {
		t.Fatalf("Range = %v", got)
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		n, size, dt int
		wantFrames  int
		wantOldest  int // ms
	}{
		{"bytes", Config{MaxBytes: 100, MaxAge: time.Hour, MaxFrames: 64}, 20, 30, 10, 3, 170},
		{"age", Config{MaxBytes: 1 << 20, MaxAge: time.Second, MaxFrames: 64}, 30, 10, 100, 11, 1900},
		{"count", Config{MaxBytes: 1 << 20, MaxAge: time.Hour, MaxFrames: 4}, 10, 10, 10, 4, 60},
		{"exact fit", Config{MaxBytes: 100, MaxAge: time.Hour, MaxFrames: 64}, 7, 50, 10, 2, 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustNew(t, tc.cfg)
			for i := 0; i < tc.n; i++ {
				put(t, r, i, i*tc.dt, tc.size)
			}
			s := r.Stats()
			if s.Frames != tc.wantFrames || ms(Meta{Stamp: s.Oldest}) != tc.wantOldest {
				t.Fatalf("frames %d oldest %d ms, want %d and %d ms", s.Frames, ms(Meta{Stamp: s.Oldest}), tc.wantFrames, tc.wantOldest)
			}
			if s.Put != uint64(tc.n) || s.Overwritten != uint64(tc.n-tc.wantFrames) {
				t.Fatalf("put %d overwritten %d", s.Put, s.Overwritten)
			}
			if s.FillBytes != tc.wantFrames*tc.size || s.Span != time.Duration(tc.dt*(tc.wantFrames-1))*time.Millisecond {
				t.Fatalf("fill %d span %v", s.FillBytes, s.Span)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 10})
	f := frame(0, 0, 11)
	if err := r.Put(&f); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if r.Stats().TooLarge != 1 {
		t.Fatal("not counted")
	}
}

// TestRandomIntegrity checks, after every Put of a random size, that every
// frame held still has its own bytes and the bounds hold.
func TestRandomIntegrity(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cfg := Config{MaxBytes: 5000, MaxAge: 2 * time.Second, MaxFrames: 32}
	r := mustNew(t, cfg)
	var buf []byte
	var metas []Meta
	for i := 0; i < 3000; i++ {
		put(t, r, i, i*33+rng.Intn(200)-100, rng.Intn(1200))
		s := r.Stats()
		if s.FillBytes > cfg.MaxBytes || s.Frames > cfg.MaxFrames {
			t.Fatalf("bounds broken: %+v", s)
		}
		metas = r.Range(s.Oldest, s.Newest, metas[:0])
		if len(metas) != s.Frames {
			t.Fatalf("range lists %d of %d frames", len(metas), s.Frames)
		}
		for _, m := range metas {
			var ok bool
			buf, ok = r.Copy(m.Seq, buf)
			if !ok || !bytes.Equal(buf, frame(int(m.Seq-1), 0, m.Size).Data) {
				t.Fatalf("put %d: frame seq %d corrupted", i, m.Seq)
			}
		}
	}
	if _, ok := r.Copy(1, nil); ok {
		t.Fatal("Copy of an overwritten frame succeeded")
	}
}

// TestConcurrentReaders runs one writer and slow readers under -race; the
// writer must finish regardless of the readers.
func TestConcurrentReaders(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 64 << 10, MaxAge: time.Second, MaxFrames: 64})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				select {
				case <-stop:
					return
				default:
				}
				latest, _, ok := r.Latest(nil)
				if !ok {
					continue
				}
				var m Meta
				m, buf, ok = r.Nearest(latest.Stamp, 100*time.Millisecond, buf)
				if ok && !bytes.Equal(buf, frame(int(m.Seq-1), 0, m.Size).Data) {
					t.Errorf("reader saw a torn frame seq %d", m.Seq)
					return
				}
				_ = r.Stats()
			}
		}()
	}
	for i := 0; i < 2000; i++ {
		put(t, r, i, i*10, 2000+i%700)
	}
	close(stop)
	wg.Wait()
}

func BenchmarkPut(b *testing.B) {
	r := mustNew(b, Config{MaxBytes: 8 << 20, MaxAge: 10 * time.Second, MaxFrames: 1024})
	f := frame(0, 0, 100_000) // a 720p JPEG
	b.SetBytes(int64(len(f.Data)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f.Stamp = t0.Add(time.Duration(i) * 33 * time.Millisecond)
		if err := r.Put(&f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNearest(b *testing.B) {
	r := mustNew(b, Config{MaxBytes: 64 << 20})
	for i := 0; i < 300; i++ {
		put(b, r, i, i*33, 100_000)
	}
	buf := make([]byte, 100_000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, buf, _ = r.Nearest(t0.Add(time.Duration(i%300)*33*time.Millisecond), 250*time.Millisecond, buf)
	}
}

// TestClose: a closed ring refuses frames and finds none; a reader's copy
// made before stays intact.
func TestClose(t *testing.T) {
	r := mustNew(t, Config{MaxBytes: 1 << 16, MaxAge: time.Minute})
	put(t, r, 1, 0, 1000)
	_, kept, ok := r.Latest(nil)
	if !ok {
		t.Fatal("no frame before Close")
	}
	want := append([]byte(nil), kept...)
	r.Close()
	r.Close()
	f := frame(2, 10, 100)
	if err := r.Put(&f); !errors.Is(err, ErrClosed) {
		t.Fatalf("Put after Close: %v, want ErrClosed", err)
	}
	if _, _, ok := r.Latest(nil); ok {
		t.Fatal("a closed ring still finds frames")
	}
	if _, _, ok := r.Nearest(t0, time.Second, nil); ok {
		t.Fatal("a closed ring still finds frames by time")
	}
	if string(kept) != string(want) {
		t.Fatal("a reader's copy changed after Close")
	}
	if s := r.Stats(); s.Frames != 0 || s.CapBytes != 0 {
		t.Fatalf("stats after Close: %+v", s)
	}
}

// TestValidate: the rules of the config file's ring section are this
// package's, and its errors name the config key (they named
// ringbuf.max_bytes, a key no file has).
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // error prefix; "" valid
	}{
		{Config{MaxBytes: MinBytes, MaxAge: time.Second, MaxFrames: 1}, ""},
		{Config{MaxBytes: MinBytes - 1, MaxAge: time.Second, MaxFrames: 1}, "ring.max_bytes: must be >= 1MiB"},
		{Config{MaxBytes: -1, MaxAge: time.Second, MaxFrames: 1}, "ring.max_bytes:"},
		{Config{MaxAge: time.Second, MaxFrames: 1}, "ring.max_bytes:"}, // a 0 written in the file
		{Config{MaxBytes: MinBytes, MaxAge: -1, MaxFrames: 1}, "ring.max_age:"},
		{Config{MaxBytes: MinBytes, MaxAge: time.Second}, "ring.max_frames:"},
	} {
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: Validate = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := New(Config{MaxBytes: 1000}); err == nil || !strings.HasPrefix(err.Error(), "ring.max_bytes:") {
		t.Errorf("New of a 1000-byte ring = %v", err)
	}
	if r, err := New(Config{}); err != nil {
		t.Errorf("New with the defaults: %v", err)
	} else {
		r.Close()
	}
}

// TestCyclesThroughWhatItKeeps: a camera whose max_age keeps far less
// than max_bytes cycles through about what it keeps (the rest of the
// arena is never touched, so it never becomes resident and the pages
// in use are not faulted in again each round), and it evicts no frame
// earlier than a ring with 64 times its bytes would. A byte-bound camera
// still uses the whole arena.
func TestCyclesThroughWhatItKeeps(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		size, jit   int // frame bytes, +- random jitter
		maxTouched  int
		wantTouched int // at least
	}{
		{"age-bound", Config{MaxBytes: 1 << 20, MaxAge: time.Second, MaxFrames: 1024}, 1000, 0, 31*1000*8/7 + 1000, 30 * 1000},
		{"age-bound, sizes +-10%", Config{MaxBytes: 1 << 20, MaxAge: time.Second, MaxFrames: 1024}, 1000, 100, 31*1100*8/7 + 1100, 30 * 900},
		{"byte-bound", Config{MaxBytes: 20000, MaxAge: time.Hour, MaxFrames: 1024}, 1000, 0, 20000, 20000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			r := mustNew(t, tc.cfg)
			big := tc.cfg
			big.MaxBytes *= 64
			ref := mustNew(t, big)
			for i := 0; i < 30*60; i++ { // a minute at 30 fps
				size := tc.size
				if tc.jit > 0 {
					size += rng.Intn(2*tc.jit+1) - tc.jit
				}
				put(t, r, i, i*1000/30, size)
				if tc.cfg.MaxAge < time.Hour {
					put(t, ref, i, i*1000/30, size)
					if got, want := r.Stats().Frames, ref.Stats().Frames; got != want {
						t.Fatalf("put %d: %d frames held, a large ring holds %d (evicted before max_age)", i, got, want)
					}
				}
			}
			if got := r.Stats().TouchedBytes; got > tc.maxTouched || got < tc.wantTouched {
				t.Fatalf("touched %d bytes of the arena, want %d..%d", got, tc.wantTouched, tc.maxTouched)
			}
		})
	}
}
