package sheet

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/edged-robotics/edged/internal/yield"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// Source is where a Builder finds frames: *ringbuf.Ring implements it.
// Nearest copies the frame nearest t within [t-window, t+window) into dst.
type Source interface {
	Nearest(t time.Time, window time.Duration, dst []byte) (ringbuf.Meta, []byte, bool)
}

// SourceExcept is optionally implemented by a Source (*ringbuf.Ring
// does): Nearest ignoring the frames in skip. With it a builder replaces
// a frame it cannot decode by the next nearest one in the tick's window.
type SourceExcept interface {
	NearestExcept(t time.Time, window time.Duration, skip []uint64, dst []byte) (ringbuf.Meta, []byte, bool)
}

// SourceSettled is a Source that can tell when the frame nearest a tick
// is final (*ringbuf.Ring does). A Builder then finalizes a tick as soon
// as its frame is settled instead of waiting the whole grace, which is
// most of a sheet's latency.
type SourceSettled interface {
	Settled(t time.Time, window time.Duration) bool
}

// maxTries bounds the frames tried for one tick.
const maxTries = 3

// BuilderConfig configures a Builder.
type BuilderConfig struct {
	Camera string // the camera's topic, in the metadata
	// Name is the camera's name (Meta.CameraName), if it has one.
	Name   string
	Recipe Recipe             // validated by NewBuilder
	Start  time.Time          // episode start: tick 0
	Source Source             // frames (usually the camera's ring)
	Emit   func(*Sheet) error // receives each finished sheet; the sheet is borrowed until Emit returns (Clone to keep it)
	// Logger gets one line per unsupported encoding (nil: slog.Default()).
	Logger *slog.Logger
	// Limits cap decoded frame sizes (zero: turbojpeg.DefaultLimits).
	Limits turbojpeg.Limits
	// NoTileCache disables keeping the episode's tiles (no LabelSheet).
	NoTileCache bool
}

// Stats counts what a Builder did.
type Stats struct {
	Ticks        uint64 // ticks finalized
	Tiles        uint64 // ticks with a frame
	Placeholders uint64 // ticks without a usable frame
	Sheets       uint64 // sheets emitted
	SheetBytes   uint64 // JPEG bytes emitted
	Corrupt      uint64 // frames refused as corrupt or truncated
	TooLarge     uint64 // frames refused for their dimensions
	Unsupported  uint64 // frames with an unsupported encoding or format
	BadLayout    uint64 // raw frames whose step/data length disagree with their size
	EmitErrors   uint64 // Emit returned an error
	Skipped      uint64 // ticks skipped after a clock jump (MaxBacklog)
	CacheTiles   int    // tiles held for labeling sheets
	CacheBytes   int    // their memory (JPEG bytes plus chunk slack)
}

// Builder samples one camera on the exact tick grid of an episode and
// builds contact sheets. All methods are safe for concurrent use (one
// mutex); the usual driver is one goroutine calling Advance with the
// capture clock, plus LabelSheet when a segment closes.
type Builder struct {
	mu sync.Mutex
	builderState
}

// builderState is what a Builder holds for its episode; Reset replaces
// it whole, carrying over only the memory it reuses.
type builderState struct {
	cfg    BuilderConfig
	r      Recipe
	half   time.Duration
	closed bool // Close freed the tiler's handles

	tiler  *Tiler
	next   int64 // next tick to finalize
	done   bool
	tileH  int
	canvas []byte
	tiles  []TileMeta // tiles of the open sheet
	fbuf   []byte     // frame copied from the source
	tried  [maxTries]uint64
	jpeg   []byte
	sheet  Sheet
	cache  *tileCache
	logged map[string]bool
	stats  Stats

	yield yield.Yielder // a run of tiles yields its thread now and then
}

// NewBuilder returns a builder for one camera and episode.
func NewBuilder(cfg BuilderConfig) (*Builder, error) {
	b := &Builder{}
	if err := b.Reset(cfg); err != nil {
		return nil, err
	}
	return b, nil
}

// Close frees the builder's TurboJPEG handles. It does not emit the open
// sheet: call Finish first.
func (b *Builder) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tiler.Close()
	b.closed = true
}

// TickTime is the time of tick k: start + k x interval, computed from k
// (never accumulated), so the grid never drifts.
func (b *Builder) TickTime(k int64) time.Time {
	return b.cfg.Start.Add(time.Duration(k) * b.r.Interval)
}

// Advance finalizes every tick whose window and grace have passed at now
// (tick + interval/2 + grace <= now) and emits the sheets they complete.
// It returns the first Emit error (the sheet is counted and dropped).
//
// The Source must still hold the frames of every tick not yet finalized:
// with a ring, MaxAge >= interval + grace and Advance called at least
// every few hundred milliseconds is enough. A driver feeding
// recorded frames calls Advance(t) before putting a frame stamped t, so
// a gap in the recording cannot evict frames that pending ticks need.
func (b *Builder) Advance(now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil
	}
	var first error
	if now.Sub(b.TickTime(b.next)) > MaxBacklog {
		first = b.skipTo(now)
	}
	for b.due(now) {
		if err := b.finalize(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// due reports whether the next tick can be finalized at now: its window
// and grace have passed, or (Source permitting, unless WaitGrace) its
// frame is settled; grace still bounds the wait for a camera that sends
// nothing.
func (b *Builder) due(now time.Time) bool {
	tick := b.TickTime(b.next)
	if !tick.Add(b.half + b.r.Grace).After(now) {
		return true
	}
	if b.r.WaitGrace {
		return false
	}
	s, ok := b.cfg.Source.(SourceSettled)
	return ok && !now.Before(tick) && s.Settled(tick, b.half)
}

// MaxBacklog bounds how far behind the clock Advance catches up tick by
// tick. A clock that jumps further ahead (a /clock reset, a suspended
// machine) would otherwise produce thousands of placeholder sheets: the
// open sheet is completed and emitted, the ticks in between are skipped (counted in
// Stats.Skipped, logged) and sampling resumes at the start of the sheet
// containing the current time.
const MaxBacklog = 10 * time.Minute

func (b *Builder) skipTo(now time.Time) error {
	// Settle the open sheet normally first: its frames may still be there.
	per := int64(b.r.TilesPerSheet())
	var err error
	for {
		if e := b.finalize(); e != nil && err == nil {
			err = e
		}
		if b.next%per == 0 {
			break
		}
	}
	k := floorDiv(now.Sub(b.cfg.Start), b.r.Interval)
	k -= k % per
	if k > b.next {
		b.cfg.Logger.Warn("sheet: clock jumped ahead, skipping ticks", "camera", b.cfg.Camera,
			"from", b.seconds(b.next), "to", b.seconds(k))
		b.stats.Skipped += uint64(k - b.next)
		b.next = k
	}
	return err
}

// endSlack: a tick this close after the end still belongs to the episode.
// The same instant is stamped a fraction of a millisecond apart by a live
// run (arrival on /clock) and a replay (record time); with the slack both
// end on the same tick, so their last sheets are the same.
const endSlack = 5 * time.Millisecond

// Finish ends the episode at end: it finalizes every tick at or before
// end without waiting for grace and emits the open sheet, shorter if it
// is not full. The builder emits nothing afterwards; LabelSheet still works.
func (b *Builder) Finish(end time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil
	}
	var first error
	for !b.TickTime(b.next).After(end.Add(endSlack)) {
		if err := b.finalize(); err != nil && first == nil {
			first = err
		}
	}
	if err := b.closeSheet(); err != nil && first == nil {
		first = err
	}
	b.done = true
	return first
}

// Stats returns a snapshot of the counters.
func (b *Builder) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	if b.cache != nil {
		s.CacheTiles, s.CacheBytes = b.cache.size()
	}
	return s
}

// TileHeight returns the tile height (0 until the first frame is seen).
func (b *Builder) TileHeight() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tileH
}

func (b *Builder) seconds(k int64) float64 {
	return (time.Duration(k) * b.r.Interval).Seconds()
}

// cell returns the canvas view of cell i of the open sheet.
func (b *Builder) cell(i int) rgbImage {
	w := b.r.TileWidth
	stride := b.r.Columns * w * 3
	row, col := i/b.r.Columns, i%b.r.Columns
	return rgbImage{pix: b.canvas[row*b.tileH*stride+col*w*3:], w: w, h: b.tileH, stride: stride}
}

// setTileHeight sets the tile height of the camera's aspect ratio,
// capped so the canvas stays within the recipe's pixel budget (a taller
// camera's frames are letterboxed).
func (b *Builder) setTileHeight(h int) {
	h = min(h, b.r.MaxTileHeight())
	b.tileH = h
	b.canvas = growBytes(b.canvas, b.r.Columns*b.r.Rows*b.r.TileWidth*h*3)
}

// finalize settles tick b.next: picks its frame, renders its tile into
// the canvas and closes the sheet when it was the last tick.
func (b *Builder) finalize() error {
	b.yield.Maybe() // replay and backlogs render tile after tile: internal/yield
	k := b.next
	b.next++
	b.stats.Ticks++
	per := int64(b.r.TilesPerSheet())
	i := int(k % per)
	tick := b.TickTime(k)
	tm := TileMeta{Tick: k, Seconds: b.seconds(k), Stamp: ROSTimeOf(tick), FrameSeconds: b.seconds(k),
		Row: i / b.r.Columns, Column: i % b.r.Columns, Placeholder: true}
	m, data, ok := b.cfg.Source.Nearest(tick, b.half, b.fbuf)
	for try := 0; ok; try++ {
		b.fbuf = data
		im := Image{Format: m.Format, Encoding: m.Encoding, Width: m.Width, Height: m.Height, Step: m.Step, BigEndian: m.BigEndian, Data: data}
		err := b.renderCell(i, im)
		if err == nil {
			tm.Placeholder = false
			tm.Stamp = ROSTimeOf(m.Stamp)
			tm.FrameSeconds = m.Stamp.Sub(b.cfg.Start).Seconds()
			break
		}
		b.countError(err, m.Encoding)
		// Try the next nearest frame in the window, if the source can.
		ex, can := b.cfg.Source.(SourceExcept)
		if !can || try+1 == maxTries {
			break
		}
		b.tried[try] = m.Seq // a field, not a local: a local would escape
		m, data, ok = ex.NearestExcept(tick, b.half, b.tried[:try+1], b.fbuf)
	}
	if tm.Placeholder {
		b.stats.Placeholders++
	} else {
		b.stats.Tiles++
		if b.cache != nil {
			c := b.cell(i)
			var err error
			b.jpeg, err = b.tiler.enc.Encode(b.jpeg, c.pix, c.w, c.h, c.stride, b.r.Quality, turbojpeg.Subsamp420)
			if err != nil {
				b.jpeg = b.jpeg[:0]
			}
			b.cache.put(tm, b.jpeg)
		}
		var tb [24]byte
		b.cell(i).drawBadge(formatSeconds(&tb, centis(k, b.r.Interval)))
	}
	if b.cache != nil && tm.Placeholder {
		b.cache.put(tm, nil)
	}
	b.tiles = append(b.tiles, tm)
	if i == int(per)-1 {
		return b.closeSheet()
	}
	return nil
}

// centis is tick k's time since the start in hundredths of a second.
func centis(k int64, interval time.Duration) int64 {
	d := time.Duration(k) * interval
	return int64((d + 5*time.Millisecond) / (10 * time.Millisecond))
}

func (b *Builder) renderCell(i int, im Image) error {
	if b.tileH == 0 {
		w, h, err := b.tiler.Size(im)
		if err != nil {
			return err
		}
		b.setTileHeight(TileHeight(b.r.TileWidth, w, h))
	}
	return b.tiler.render(b.cell(i), im)
}

func (b *Builder) countError(err error, enc string) {
	switch {
	case errors.Is(err, ErrUnsupportedEncoding), errors.Is(err, ErrFormat):
		b.stats.Unsupported++
		if !b.logged[enc] {
			b.logged[enc] = true
			b.cfg.Logger.Warn("sheet: frames refused (logged once per encoding)", "camera", b.cfg.Camera, "err", err)
		}
	case errors.Is(err, ErrBadLayout):
		b.stats.BadLayout++
	case errors.Is(err, turbojpeg.ErrTooLarge):
		b.stats.TooLarge++
	default:
		b.stats.Corrupt++
	}
}

// closeSheet composes, encodes and emits the open sheet (if any tiles).
func (b *Builder) closeSheet() error {
	n := len(b.tiles)
	if n == 0 {
		return nil
	}
	if b.tileH == 0 {
		b.setTileHeight(TileHeight(b.r.TileWidth, 4, 3))
	}
	cols := min(n, b.r.Columns)
	rows := (n + b.r.Columns - 1) / b.r.Columns
	for i := range b.tiles {
		if b.tiles[i].Placeholder {
			c := b.cell(i)
			placeholder(c)
			var tb [24]byte
			c.drawBadge(formatSeconds(&tb, centis(b.tiles[i].Tick, b.r.Interval)))
		}
	}
	for i := n; i < rows*b.r.Columns; i++ {
		c := b.cell(i)
		c.fill(0, 0, c.w, c.h, [3]byte{})
	}
	w, h := cols*b.r.TileWidth, rows*b.tileH
	var err error
	b.jpeg, err = b.tiler.enc.Encode(b.jpeg, b.canvas, w, h, b.r.Columns*b.r.TileWidth*3, b.r.Quality, turbojpeg.Subsamp420)
	tiles := b.tiles
	b.tiles = b.tiles[:0]
	if err != nil {
		return fmt.Errorf("sheet %s: encode: %w", b.cfg.Camera, err)
	}
	b.sheet.JPEG = b.jpeg
	b.sheet.Meta = Meta{
		Kind: "episode", Index: int(tiles[0].Tick/int64(b.r.TilesPerSheet())) + 1, Camera: b.cfg.Camera, CameraName: b.cfg.Name,
		EpisodeStart: ROSTimeOf(b.cfg.Start), IntervalSeconds: b.r.Interval.Seconds(),
		Rows: rows, Columns: cols, TileWidth: b.r.TileWidth, TileHeight: b.tileH, Width: w, Height: h,
		Quality: b.r.Quality, Bytes: len(b.jpeg), Tokens: VLMTokens(w, h), Tiles: tiles,
	}
	b.stats.Sheets++
	b.stats.SheetBytes += uint64(len(b.jpeg))
	if err := b.cfg.Emit(&b.sheet); err != nil {
		b.stats.EmitErrors++
		return fmt.Errorf("sheet %s #%d: emit: %w", b.cfg.Camera, b.sheet.Meta.Index, err)
	}
	return nil
}
