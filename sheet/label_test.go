package sheet

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ringbuf"
)

// labelBuilder returns a finished builder over frames of a w x h camera
// stamped at the given offsets from epoch, with recipe r.
func labelBuilder(t *testing.T, r Recipe, w, h int, end time.Duration, stamps ...time.Duration) *Builder {
	t.Helper()
	ring := newRing(t, ringbuf.Config{})
	img := testJPEG(t, w, h, [3]byte{0, 200, 0})
	var c collector
	b := newTestBuilder(t, ring, r, &c)
	for _, d := range stamps {
		f := jpegFrame(img, epoch.Add(d))
		if err := b.Advance(f.Stamp); err != nil {
			t.Fatal(err)
		}
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(epoch.Add(end)); err != nil {
		t.Fatal(err)
	}
	return b
}

// every returns stamps from 0 to end (exclusive) every step.
func every(step, end time.Duration) []time.Duration {
	var out []time.Duration
	for d := time.Duration(0); d < end; d += step {
		out = append(out, d)
	}
	return out
}

func seg(i int, from, to time.Duration) Segment {
	return Segment{Index: i, Start: epoch.Add(from), End: epoch.Add(to)}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// A tick exactly on a boundary belongs to the segment starting there
// only: every tile of a labeling sheet lies in [start, end).
func TestLabelSheetTilesInsideTheSegment(t *testing.T) {
	b := labelBuilder(t, DefaultRecipe(), 64, 48, 10*time.Second, every(ms(62), 10*time.Second)...)
	segs := []Segment{seg(0, 0, ms(2500)), seg(1, ms(2500), ms(5000)), seg(2, ms(5000), ms(5600)), seg(3, ms(5600), ms(10000))}
	seen := map[int64]int{}
	for _, g := range segs {
		ls, err := b.LabelSheet(g)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := g.Start.Sub(epoch).Seconds(), g.End.Sub(epoch).Seconds()
		for _, tm := range ls.Meta.Tiles {
			if tm.Seconds < lo || tm.Seconds >= hi || tm.Placeholder {
				t.Errorf("segment %d [%.1f, %.1f): tile %+v", g.Index, lo, hi, tm)
			}
			seen[tm.Tick]++
		}
		if sg := ls.Meta.Segment; ls.Meta.Index != g.Index || sg == nil || sg.Index != g.Index || sg.StartSeconds != lo ||
			sg.EndSeconds != hi || sg.Start != ROSTimeOf(g.Start) || sg.End != ROSTimeOf(g.End) {
			t.Errorf("segment %d: meta %+v segment %+v", g.Index, ls.Meta, ls.Meta.Segment)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("tick %d shown in %d labeling sheets", k, n)
		}
	}
	// The segment [2.5, 5) starts on tick 5 and shows it.
	ls, _ := b.LabelSheet(segs[1])
	if ls.Meta.Tiles[0].Tick != 5 {
		t.Errorf("segment [2.5, 5) starts at tick %d, want 5", ls.Meta.Tiles[0].Tick)
	}
}

// Short segments: one labeling sheet each, always, named by segment; the
// nearest frame inside it, or a placeholder and a note.
func TestLabelSheetShortSegments(t *testing.T) {
	dense := labelBuilder(t, DefaultRecipe(), 64, 48, 3*time.Second, every(ms(62), 3*time.Second)...)
	// Frames on the ticks only (2 fps): nothing between 1.0 and 1.5.
	sparse := labelBuilder(t, DefaultRecipe(), 64, 48, 3*time.Second, every(ms(500), 3*time.Second)...)
	cases := []struct {
		name        string
		b           *Builder
		seg         Segment
		placeholder bool
	}{
		{"between ticks, frames inside", dense, seg(4, ms(1100), ms(1300)), false},
		{"next one, sharing no tick", dense, seg(5, ms(1300), ms(1400)), false},
		{"between ticks, no frame inside", sparse, seg(4, ms(1100), ms(1300)), true},
		{"empty", dense, seg(6, ms(1400), ms(1400)), true},
	}
	dir := t.TempDir()
	w, err := NewDirWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		ls, err := tc.b.LabelSheet(tc.seg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(ls.Meta.Tiles) != 1 || ls.Meta.Note == "" || ls.Meta.Index != tc.seg.Index || ls.Meta.Tokens != 258 {
			t.Fatalf("%s: meta %+v", tc.name, ls.Meta)
		}
		tm := ls.Meta.Tiles[0]
		lo, hi := tc.seg.Start.Sub(epoch).Seconds(), tc.seg.End.Sub(epoch).Seconds()
		if tm.Placeholder != tc.placeholder || !tm.OffGrid {
			t.Errorf("%s: tile %+v, want placeholder %v", tc.name, tm, tc.placeholder)
		}
		if !tc.placeholder && (tm.FrameSeconds < lo || tm.FrameSeconds >= hi || tm.Seconds != tm.FrameSeconds) {
			t.Errorf("%s: frame at %.3f s, outside [%.3f, %.3f)", tc.name, tm.FrameSeconds, lo, hi)
		}
		if tc.b == dense {
			if err := w.Write(ls); err != nil {
				t.Fatal(err)
			}
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	sort.Strings(names)
	if len(names) != 3 || filepath.Base(names[0]) != "label-0004.jpg" || filepath.Base(names[2]) != "label-0006.jpg" {
		t.Fatalf("files %v, want one per segment", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "label-0006.json")); len(b) == 0 {
		t.Fatal("label-0006.json missing")
	}
}

// A sampled tick without a frame is replaced by the nearest tick of the
// segment that has one: no "NO FRAME" tile while real frames exist.
func TestLabelSheetPrefersRealFrames(t *testing.T) {
	// Frames at 1 fps: ticks 10, 12, ... have one; the odd ticks that
	// LabelTicks samples in [5 s, 10 s) (11, 13, ..., 19) have none.
	b := labelBuilder(t, DefaultRecipe(), 64, 48, 12*time.Second, every(time.Second, 12*time.Second)...)
	ls, err := b.LabelSheet(seg(1, 5*time.Second, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var ticks []int64
	for _, tm := range ls.Meta.Tiles {
		ticks = append(ticks, tm.Tick)
		if tm.Placeholder {
			t.Errorf("tile %+v is a placeholder; ticks 10..18 have frames", tm)
		}
	}
	if len(ticks) != 5 || !sort.SliceIsSorted(ticks, func(i, j int) bool { return ticks[i] < ticks[j] }) || ls.Meta.Note != "" {
		t.Errorf("ticks %v note %q, want 5 distinct ticks in order", ticks, ls.Meta.Note)
	}
	// A segment where the camera sent nothing keeps its placeholders and
	// says so.
	gap := labelBuilder(t, DefaultRecipe(), 64, 48, 12*time.Second, 0, 11*time.Second)
	ls, err = gap.LabelSheet(seg(2, 2*time.Second, 8*time.Second))
	if err != nil || ls.Meta.Note == "" || !ls.Meta.Tiles[0].Placeholder {
		t.Fatalf("camera gap: %v %+v", err, ls)
	}
}

// Every labeling sheet of the default recipe costs one VLM tile (258
// tokens), whatever the camera's aspect and the segment's length.
func TestLabelSheetsCostOneVLMTile(t *testing.T) {
	for _, r := range []Recipe{DefaultRecipe(), LowCostRecipe()} {
		for _, aspect := range [][2]int{{64, 48}, {64, 36}, {48, 48}, {48, 64}} {
			b := labelBuilder(t, r, aspect[0], aspect[1], 20*time.Second, every(ms(100), 20*time.Second)...)
			for _, length := range []time.Duration{ms(200), ms(600), time.Second, ms(1600), 2 * time.Second, 10 * time.Second} {
				ls, err := b.LabelSheet(seg(0, time.Second, time.Second+length))
				if err != nil {
					t.Fatal(err)
				}
				m := ls.Meta
				if m.Tokens != 258 || m.Width > VLMTile || m.Height > VLMTile {
					t.Errorf("tile %d, camera %dx%d, segment %s: %dx%d, %d tokens; want 258", r.TileWidth, aspect[0], aspect[1], length,
						m.Width, m.Height, m.Tokens)
				}
				if want := min(r.LabelTiles, int((length+r.Interval-1)/r.Interval)); len(m.Tiles) != want { // starts on a tick
					t.Errorf("segment %s: %d tiles, want %d", length, len(m.Tiles), want)
				}
			}
		}
	}
}

func TestLabelGrid(t *testing.T) {
	cases := []struct{ n, tw, th, tiles, cols, rows int }{
		{5, 224, 168, 5, 3, 2},
		{4, 224, 168, 4, 2, 2},
		{3, 224, 126, 3, 3, 1},
		{1, 224, 168, 1, 1, 1},
		{5, 153, 115, 5, 5, 1},
		{20, 224, 168, 12, 3, 4},
		{5, 1000, 750, 1, 1, 1},
		{0, 224, 168, 0, 0, 0},
	}
	for _, c := range cases {
		tiles, cols, rows := LabelGrid(c.n, c.tw, c.th)
		if tiles != c.tiles || cols != c.cols || rows != c.rows {
			t.Errorf("LabelGrid(%d, %d, %d) = %d, %d x %d; want %d, %d x %d", c.n, c.tw, c.th, tiles, cols, rows, c.tiles, c.cols, c.rows)
		}
	}
}

// The low-cost preset's contact sheet is one VLM tile; the published
// one two.
func TestPresets(t *testing.T) {
	cases := []struct {
		preset string
		tokens int
	}{{"", 516}, {PresetPublished, 516}, {PresetLowCost, 258}}
	for _, c := range cases {
		r, err := PresetRecipe(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, aspect := range [][2]int{{4, 3}, {16, 9}} {
			th := TileHeight(r.TileWidth, aspect[0], aspect[1])
			if got := VLMTokens(r.Columns*r.TileWidth, r.Rows*th); got != c.tokens {
				t.Errorf("preset %q, %d:%d: a full sheet costs %d tokens, want %d", c.preset, aspect[0], aspect[1], got, c.tokens)
			}
		}
	}
	if _, err := PresetRecipe("cheap"); err == nil {
		t.Error("unknown preset accepted")
	}
	// config (which imports no edged package) spells the presets itself.
	if config.PresetPublished != PresetPublished || config.PresetLowCost != PresetLowCost ||
		config.LowCostTileWidth != LowCostTileWidth || config.DefaultTileWidth != DefaultTileWidth {
		t.Error("config's sheet presets disagree with sheet's")
	}
}
