package sheet

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ringbuf"
)

// episodeOut is what a builder made of one episode: its contact sheets
// and the labeling sheet of its one segment.
type episodeOut struct {
	sheets []*Sheet
	label  *Sheet
}

// runEpisode feeds ticks frames of img at 2 Hz from start to b (set up
// for that episode with c) and finishes the episode.
func runEpisode(t *testing.T, b *Builder, c *collector, ring *ringbuf.Ring, img []byte, start time.Time, ticks int) episodeOut {
	t.Helper()
	end := start
	for i := range ticks {
		end = start.Add(time.Duration(i) * 500 * time.Millisecond)
		f := jpegFrame(img, end)
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
		if err := b.Advance(end); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(end); err != nil {
		t.Fatal(err)
	}
	label, err := b.LabelSheet(Segment{Index: 0, Start: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	return episodeOut{sheets: c.sheets, label: label}
}

// TestResetBuildsAsNew: a builder reset for the next episode builds the
// very sheets a new builder does, whatever the last episode left in its
// buffers (another aspect ratio, more tiles, a logged encoding, a closed
// handle).
func TestResetBuildsAsNew(t *testing.T) {
	wide := testJPEG(t, 640, 360, [3]byte{30, 90, 200})
	tall := testJPEG(t, 360, 640, [3]byte{200, 90, 30})
	second := epoch.Add(time.Minute)
	for _, c := range []struct {
		name  string
		first []byte // the previous episode's frames
		ticks int
		close bool // the builder was closed before Reset
	}{
		{"same camera", wide, 28, false},
		{"taller frames before", tall, 45, false},
		{"after Close", tall, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ring := newRing(t, ringbuf.Config{MaxBytes: 8 << 20, MaxAge: 2 * time.Minute})
			var before collector
			reused := newTestBuilder(t, ring, DefaultRecipe(), &before)
			runEpisode(t, reused, &before, ring, c.first, epoch, c.ticks)
			if c.close {
				reused.Close()
			}
			var got, want collector
			cfg := BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: second, Source: ring, Emit: got.emit}
			if err := reused.Reset(cfg); err != nil {
				t.Fatal(err)
			}
			gotOut := runEpisode(t, reused, &got, ring, wide, second, 28)
			ring2 := newRing(t, ringbuf.Config{MaxBytes: 8 << 20, MaxAge: 2 * time.Minute})
			cfg.Source, cfg.Emit = ring2, want.emit
			fresh, err := NewBuilder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			wantOut := runEpisode(t, fresh, &want, ring2, wide, second, 28)
			if len(gotOut.sheets) != len(wantOut.sheets) {
				t.Fatalf("%d sheets after Reset, %d from a new builder", len(gotOut.sheets), len(wantOut.sheets))
			}
			for i := range gotOut.sheets {
				g, w := gotOut.sheets[i], wantOut.sheets[i]
				if !bytes.Equal(g.JPEG, w.JPEG) || !reflect.DeepEqual(g.Meta, w.Meta) {
					t.Errorf("sheet %d after Reset differs from a new builder's: %+v vs %+v", i, g.Meta, w.Meta)
				}
			}
			if !bytes.Equal(gotOut.label.JPEG, wantOut.label.JPEG) || !reflect.DeepEqual(gotOut.label.Meta, wantOut.label.Meta) {
				t.Errorf("labeling sheet after Reset differs: %+v vs %+v", gotOut.label.Meta, wantOut.label.Meta)
			}
			if g, w := reused.Stats(), fresh.Stats(); g != w {
				t.Errorf("stats after Reset %+v, new builder %+v", g, w)
			}
		})
	}
}

// TestResetRefusesBadConfig: Reset validates as NewBuilder does and
// leaves the builder as it was.
func TestResetRefusesBadConfig(t *testing.T) {
	ring := newRing(t, ringbuf.Config{MaxBytes: 8 << 20, MaxAge: 2 * time.Minute})
	var c collector
	b := newTestBuilder(t, ring, DefaultRecipe(), &c)
	if err := b.Reset(BuilderConfig{Camera: "/cam", Recipe: DefaultRecipe(), Start: epoch}); err == nil {
		t.Fatal("Reset without Source and Emit: no error")
	}
	bad := DefaultRecipe()
	bad.Columns = 0
	if err := b.Reset(BuilderConfig{Camera: "/cam", Recipe: bad, Start: epoch, Source: ring, Emit: c.emit}); err == nil {
		t.Fatal("Reset with an invalid recipe: no error")
	}
	runEpisode(t, b, &c, ring, testJPEG(t, 64, 36, [3]byte{1, 2, 3}), epoch, 20)
	if len(c.sheets) != 1 {
		t.Fatalf("%d sheets after refused Resets, want 1", len(c.sheets))
	}
}
