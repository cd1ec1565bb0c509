package sheet

import (
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

// reuse is an empty cache for a new episode of room for entries, in
// c's storage when c has one: its entries' array and its first chunk
// (later chunks go, so that a long episode's tiles are not kept past it).
func (c *tileCache) reuse(entries int) *tileCache {
	if c == nil || cap(c.entries) < entries {
		return newTileCache(entries)
	}
	c.entries = c.entries[:0]
	clear(c.chunks[min(1, len(c.chunks)):])
	c.chunks = c.chunks[:min(1, len(c.chunks))]
	if len(c.chunks) == 1 {
		c.chunks[0] = c.chunks[0][:0]
	}
	return c
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
