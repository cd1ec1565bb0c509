package sheet

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/edged-robotics/edged/ringbuf"
)

// Segment is what a labeling sheet shows: segment Index of the episode
// over [Start, End).
type Segment struct {
	Index      int
	Start, End time.Time
}

// labelTile is one tile of a labeling sheet before it is drawn.
type labelTile struct {
	meta TileMeta
	jpeg []byte // the cached tile (badge-less JPEG), or nil
	pix  []byte // or an off-grid frame rendered (tw x th RGB), or nil
}

func (t *labelTile) real() bool { return t.jpeg != nil || t.pix != nil }

// LabelSheet builds the labeling sheet of seg: always one sheet, named
// by the segment (Meta.Segment, Meta.Index) and laid out by LabelGrid to
// cost one VLM tile.
//
// Its tiles are up to Recipe.LabelTiles ticks sampled uniformly among the
// finalized ticks t with Start <= t < End (a tick on a boundary belongs to
// the segment starting there), each with its badge. A sampled tick
// without a frame inside the segment is replaced by the nearest tick of
// the segment that has one and is not shown yet. A segment holding no
// tick (shorter than the interval) shows one off-grid tile: the frame
// nearest its middle inside it, from the tile cache or the Source;
// failing that, a placeholder, and Meta.Note says why.
//
// Ticks are finalized by Advance (interval/2 + grace after the tick) or
// Finish, so call it after Advance(End + interval/2 + grace) to cover the
// whole segment. The sheet returned is the caller's.
func (b *Builder) LabelSheet(seg Segment) (*Sheet, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cache == nil {
		return nil, errors.New("sheet: the tile cache is disabled (NoTileCache)")
	}
	if seg.End.Before(seg.Start) {
		return nil, fmt.Errorf("sheet %s: segment %d ends (%s) before it starts (%s)", b.cfg.Camera, seg.Index,
			seg.End.Sub(b.cfg.Start), seg.Start.Sub(b.cfg.Start))
	}
	tw, th := b.r.TileWidth, b.tileH
	if th == 0 {
		th = min(TileHeight(tw, 4, 3), b.r.MaxTileHeight())
	}
	iv := b.r.Interval
	first := max(ceilDiv(seg.Start.Sub(b.cfg.Start), iv), 0)
	last := min(ceilDiv(seg.End.Sub(b.cfg.Start), iv)-1, b.next-1)
	n, _, _ := LabelGrid(b.r.LabelTiles, tw, th)
	var tiles []labelTile
	var note string
	if first <= last {
		tiles = b.onGrid(seg, first, last, n)
		if !slices.ContainsFunc(tiles, func(t labelTile) bool { return t.real() }) {
			note = fmt.Sprintf("the camera had no usable frame in the segment %s", b.span(seg))
		}
	} else {
		var t labelTile
		t, th, note = b.offGrid(seg, tw, th)
		tiles = []labelTile{t}
	}
	return b.drawLabel(seg, tiles, tw, th, note)
}

// span formats seg's times since the episode start.
func (b *Builder) span(seg Segment) string {
	return fmt.Sprintf("[%.3f s, %.3f s)", seg.Start.Sub(b.cfg.Start).Seconds(), seg.End.Sub(b.cfg.Start).Seconds())
}

// inside reports whether a tile's frame lies in seg.
func (b *Builder) inside(seg Segment, tm TileMeta) bool {
	t := b.cfg.Start.Add(time.Duration(tm.FrameSeconds * float64(time.Second)))
	return !t.Before(seg.Start) && t.Before(seg.End)
}

// cached returns tick k's tile from the cache (a placeholder when it has
// none).
func (b *Builder) cached(k int64) labelTile {
	e, jpeg, ok := b.cache.get(k)
	if !ok {
		return labelTile{meta: TileMeta{Tick: k, Seconds: b.seconds(k), Stamp: ROSTimeOf(b.TickTime(k)),
			FrameSeconds: b.seconds(k), Placeholder: true}}
	}
	return labelTile{meta: e.meta, jpeg: jpeg}
}

// onGrid samples n of the ticks first..last of seg, replacing each tick
// without a frame inside seg by the nearest unused tick that has one.
func (b *Builder) onGrid(seg Segment, first, last int64, n int) []labelTile {
	ticks := LabelTicks(first, last, n)
	used := make(map[int64]bool, len(ticks))
	for _, k := range ticks {
		used[k] = true
	}
	good := func(t labelTile) bool { return t.real() && b.inside(seg, t.meta) }
	tiles := make([]labelTile, 0, len(ticks))
	for _, k := range ticks {
		t := b.cached(k)
		if !good(t) {
			for d := int64(1); k-d >= first || k+d <= last; d++ {
				if alt := b.cached(k - d); k-d >= first && !used[k-d] && good(alt) {
					t = alt
					break
				}
				if alt := b.cached(k + d); k+d <= last && !used[k+d] && good(alt) {
					t = alt
					break
				}
			}
			used[t.meta.Tick] = true
		}
		tiles = append(tiles, t)
	}
	slices.SortFunc(tiles, func(x, y labelTile) int { return int(x.meta.Tick - y.meta.Tick) })
	return tiles
}

// offGrid is the one tile of a segment holding no tick: a neighbouring
// tick's frame when it lies inside the segment, else the Source's frame
// nearest the segment's middle, else a placeholder. It returns the tile
// height to use (the frame's, when no tile was drawn before) and a note.
func (b *Builder) offGrid(seg Segment, tw, th int) (labelTile, int, string) {
	mid := seg.Start.Add(seg.End.Sub(seg.Start) / 2)
	iv := b.r.Interval
	why := fmt.Sprintf("the segment %s holds no tick (the interval is %s)", b.span(seg), iv)
	before := floorDiv(seg.Start.Sub(b.cfg.Start), iv)
	var best *labelTile
	for _, k := range []int64{before, before + 1} {
		if k < 0 || k >= b.next {
			continue
		}
		t := b.cached(k)
		if t.real() && b.inside(seg, t.meta) && (best == nil || absDur(b.frameTime(t.meta).Sub(mid)) < absDur(b.frameTime(best.meta).Sub(mid))) {
			best = &t
		}
	}
	if best != nil {
		best.meta.OffGrid = true
		best.meta.Seconds = best.meta.FrameSeconds
		return *best, th, why + ": its tile is the frame nearest its middle"
	}
	m, data, ok := b.cfg.Source.Nearest(mid, mid.Sub(seg.Start), b.fbuf)
	if ok {
		b.fbuf = data
		pix, h, err := b.renderAlone(imageOf(m, data), tw)
		if err == nil {
			fs := m.Stamp.Sub(b.cfg.Start).Seconds()
			tm := TileMeta{Tick: floorDiv(m.Stamp.Sub(b.cfg.Start), iv), Seconds: fs, Stamp: ROSTimeOf(m.Stamp),
				FrameSeconds: fs, OffGrid: true}
			return labelTile{meta: tm, pix: pix}, h, why + ": its tile is the frame nearest its middle"
		}
		why += fmt.Sprintf(", and its frame was refused (%v)", err)
	} else {
		why += ", and the camera has no frame in it"
	}
	ss := seg.Start.Sub(b.cfg.Start).Seconds()
	tm := TileMeta{Tick: before, Seconds: ss, Stamp: ROSTimeOf(seg.Start), FrameSeconds: ss, Placeholder: true, OffGrid: true}
	return labelTile{meta: tm}, th, why + ": placeholder"
}

func (b *Builder) frameTime(tm TileMeta) time.Time {
	return b.cfg.Start.Add(time.Duration(tm.FrameSeconds * float64(time.Second)))
}

// renderAlone renders im as one tile of width tw, of the builder's tile
// height or, before any tile, the frame's aspect.
func (b *Builder) renderAlone(im Image, tw int) ([]byte, int, error) {
	th := b.tileH
	if th == 0 {
		w, h, err := b.tiler.Size(im)
		if err != nil {
			return nil, 0, err
		}
		th = min(TileHeight(tw, w, h), b.r.MaxTileHeight())
	}
	pix, err := b.tiler.RenderTile(nil, tw, th, im)
	return pix, th, err
}

func imageOf(m ringbuf.Meta, data []byte) Image {
	return Image{Format: m.Format, Encoding: m.Encoding, Width: m.Width, Height: m.Height, Step: m.Step,
		BigEndian: m.BigEndian, Data: data}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// drawLabel composes and encodes the labeling sheet of seg from tiles.
func (b *Builder) drawLabel(seg Segment, tiles []labelTile, tw, th int, note string) (*Sheet, error) {
	n, cols, rows := LabelGrid(len(tiles), tw, th)
	tiles = tiles[:n]
	w, h := cols*tw, rows*th
	canvas := make([]byte, w*h*3) // black where a row is not full
	s := &Sheet{Meta: Meta{
		Kind: "label", Index: seg.Index, Camera: b.cfg.Camera, CameraName: b.cfg.Name, EpisodeStart: ROSTimeOf(b.cfg.Start),
		IntervalSeconds: b.r.Interval.Seconds(), Rows: rows, Columns: cols, TileWidth: tw, TileHeight: th,
		Width: w, Height: h, Quality: b.r.Quality, Note: note,
		Segment: &SegmentMeta{Index: seg.Index, Start: ROSTimeOf(seg.Start), End: ROSTimeOf(seg.End),
			StartSeconds: seg.Start.Sub(b.cfg.Start).Seconds(), EndSeconds: seg.End.Sub(b.cfg.Start).Seconds()},
	}}
	var dbuf []byte
	for i, t := range tiles {
		row, col := i/cols, i%cols
		cell := gridCell(canvas, cols, tw, th, i)
		tm := t.meta
		tm.Row, tm.Column = row, col
		pix := t.pix
		if t.jpeg != nil {
			dw, dh, dec, err := b.tiler.dec.Decode(t.jpeg, 8, dbuf)
			if err == nil && dw == tw && dh == th {
				dbuf, pix = dec, dec
			}
		}
		if pix != nil && len(pix) >= tw*th*3 {
			for y := 0; y < th; y++ {
				copy(cell.pix[y*cell.stride:y*cell.stride+tw*3], pix[y*tw*3:])
			}
		} else {
			tm.Placeholder = true
			placeholder(cell)
		}
		c := centis(tm.Tick, b.r.Interval)
		if tm.OffGrid {
			c = centisOf(tm.Seconds)
		}
		var tb [24]byte
		cell.drawBadge(formatSeconds(&tb, c))
		s.Meta.Tiles = append(s.Meta.Tiles, tm)
	}
	jpeg, err := b.tiler.enc.Encode(nil, canvas, w, h, w*3, b.r.Quality, 2)
	if err != nil {
		return nil, fmt.Errorf("sheet %s: labeling sheet of segment %d: %w", b.cfg.Camera, seg.Index, err)
	}
	s.JPEG = append([]byte(nil), jpeg...)
	s.Meta.Bytes, s.Meta.Tokens = len(s.JPEG), VLMTokens(w, h)
	return s, nil
}

// centisOf is a badge time in hundredths of a second, rounded as centis.
func centisOf(seconds float64) int64 {
	d := time.Duration(seconds * float64(time.Second))
	return int64((d + 5*time.Millisecond) / (10 * time.Millisecond))
}

// gridCell is the view of cell i (reading order) of a canvas of cols
// columns of tw x th cells: the labeling sheet's layout, which
// SegmentImage shares.
func gridCell(canvas []byte, cols, tw, th, i int) rgbImage {
	row, col := i/cols, i%cols
	w := cols * tw
	return rgbImage{pix: canvas[(row*th*w+col*tw)*3:], w: tw, h: th, stride: w * 3}
}
