package sheet

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// tileCache keeps every tick's tile of the episode as a small JPEG (no
// badge) in append-only 1 MiB chunks, for labeling sheets. A 224 x 126
// tile at quality 84 is about 6-9 KB: roughly 50-65 MB per camera-hour.
type tileCache struct {
	chunks  [][]byte
	entries []cacheEntry // one per finalized tick, in tick order
}

type cacheEntry struct {
	meta   TileMeta
	chunk  int32
	off, n int32 // n == 0: no tile (placeholder)
}

const cacheChunk = 1 << 20

func newTileCache(entries int) *tileCache {
	return &tileCache{entries: make([]cacheEntry, 0, entries)}
}

func (c *tileCache) put(m TileMeta, jpeg []byte) {
	e := cacheEntry{meta: m}
	if len(jpeg) > 0 {
		last := len(c.chunks) - 1
		if last < 0 || cap(c.chunks[last])-len(c.chunks[last]) < len(jpeg) {
			c.chunks = append(c.chunks, make([]byte, 0, max(cacheChunk, len(jpeg))))
			last++
		}
		ch := c.chunks[last]
		e.chunk, e.off, e.n = int32(last), int32(len(ch)), int32(len(jpeg))
		c.chunks[last] = append(ch, jpeg...)
	}
	c.entries = append(c.entries, e)
}

// get returns tick k's entry and tile JPEG (nil for a placeholder).
func (c *tileCache) get(k int64) (cacheEntry, []byte, bool) {
	if len(c.entries) == 0 {
		return cacheEntry{}, nil, false
	}
	// Ticks are in order but may have holes (Advance skipping a clock
	// jump), so search rather than index.
	i := sort.Search(len(c.entries), func(i int) bool { return c.entries[i].meta.Tick >= k })
	if i == len(c.entries) || c.entries[i].meta.Tick != k {
		return cacheEntry{}, nil, false
	}
	e := c.entries[i]
	if e.n == 0 {
		return e, nil, true
	}
	return e, c.chunks[e.chunk][e.off : e.off+e.n], true
}

func (c *tileCache) size() (tiles, bytes int) {
	for _, ch := range c.chunks {
		bytes += cap(ch)
	}
	return len(c.entries), bytes + cap(c.entries)*int(sizeofEntry)
}

const sizeofEntry = 96 // approximate size of cacheEntry

// ErrNoTiles: a labeling sheet was asked for a span with no finalized tick.
var ErrNoTiles = errors.New("sheet: no finalized ticks in the segment")

// LabelTicks returns up to n ticks sampled uniformly inside the ticks
// first..last (inclusive): all of them when there are at most n, else the
// centre tick of each of n equal parts.
func LabelTicks(first, last int64, n int) []int64 {
	count := last - first + 1
	if count <= 0 || n <= 0 {
		return nil
	}
	if count <= int64(n) {
		out := make([]int64, 0, count)
		for k := first; k <= last; k++ {
			out = append(out, k)
		}
		return out
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = first + (int64(2*i+1)*count)/(int64(2*n))
	}
	return out
}

// LabelSheet builds the labeling sheet of the segment [start, end]: up to
// Recipe.LabelTiles tiles sampled uniformly among the finalized ticks
// inside it, in one row, each with its badge. Ticks are finalized by
// Advance (interval/2 + grace after the tick) or Finish, so call it after
// Advance(end + interval/2 + grace) to cover the whole segment. The sheet
// returned is the caller's.
func (b *Builder) LabelSheet(start, end time.Time) (*Sheet, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cache == nil {
		return nil, errors.New("sheet: the tile cache is disabled (NoTileCache)")
	}
	iv := b.r.Interval
	first := ceilDiv(start.Sub(b.cfg.Start), iv)
	last := floorDiv(end.Sub(b.cfg.Start), iv)
	first = max(first, 0)
	last = min(last, b.next-1)
	ticks := LabelTicks(first, last, b.r.LabelTiles)
	if len(ticks) == 0 {
		return nil, fmt.Errorf("%w [%s, %s]", ErrNoTiles, start.Sub(b.cfg.Start), end.Sub(b.cfg.Start))
	}
	tw, th := b.r.TileWidth, b.tileH
	if th == 0 {
		th = min(TileHeight(tw, 4, 3), b.r.MaxTileHeight())
	}
	w, h := tw*len(ticks), th
	canvas := make([]byte, w*h*3)
	s := &Sheet{Meta: Meta{
		Kind: "label", Camera: b.cfg.Camera, EpisodeStart: ROSTimeOf(b.cfg.Start), IntervalSeconds: iv.Seconds(),
		Rows: 1, Columns: len(ticks), TileWidth: tw, TileHeight: th, Width: w, Height: h, Quality: b.r.Quality,
	}}
	var dbuf []byte
	for i, k := range ticks {
		cell := rgbImage{pix: canvas[i*tw*3:], w: tw, h: th, stride: w * 3}
		e, jpeg, ok := b.cache.get(k)
		tm := e.meta
		if !ok {
			tm = TileMeta{Tick: k, Seconds: b.seconds(k), Stamp: ROSTimeOf(b.TickTime(k)), FrameSeconds: b.seconds(k), Placeholder: true}
		}
		tm.Row, tm.Column = 0, i
		placed := false
		if jpeg != nil {
			dw, dh, pix, err := b.tiler.dec.Decode(jpeg, 8, dbuf)
			if err == nil && dw == tw && dh == th {
				dbuf = pix
				for y := 0; y < th; y++ {
					copy(cell.pix[y*cell.stride:y*cell.stride+tw*3], pix[y*tw*3:])
				}
				placed = true
			}
		}
		if !placed {
			tm.Placeholder = true
			placeholder(cell)
		}
		var tb [24]byte
		cell.drawBadge(formatSeconds(&tb, centis(k, iv)))
		s.Meta.Tiles = append(s.Meta.Tiles, tm)
	}
	jpeg, err := b.tiler.enc.Encode(nil, canvas, w, h, w*3, b.r.Quality, 2)
	if err != nil {
		return nil, fmt.Errorf("sheet %s: label sheet: %w", b.cfg.Camera, err)
	}
	s.JPEG = append([]byte(nil), jpeg...)
	s.Meta.Bytes, s.Meta.Tokens = len(s.JPEG), VLMTokens(w, h)
	return s, nil
}

func floorDiv(d, iv time.Duration) int64 {
	q := int64(d / iv)
	if d%iv != 0 && d < 0 {
		q--
	}
	return q
}

func ceilDiv(d, iv time.Duration) int64 {
	q := int64(d / iv)
	if d%iv != 0 && d > 0 {
		q++
	}
	return q
}
