package sheet

import (
	"errors"
	"log/slog"
	"time"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// Reset makes b the builder of cfg's episode, as NewBuilder(cfg) would
// return it, but keeping the memory b allocated: its TurboJPEG handles
// (unless Closed, or cfg's Limits differ), canvas, frame copy, JPEG
// output and tile cache storage. A camera's next episode then costs no
// new buffers: a new builder allocates (and the kernel faults in) a few
// megabytes for its first sheet, which with short episodes is most of
// what a sheet allocates. b's open sheet and tiles are dropped: call
// Finish (and LabelSheet for its segments) first. On error b is
// unchanged.
func (b *Builder) Reset(cfg BuilderConfig) error {
	if err := cfg.Recipe.Validate(); err != nil {
		return err
	}
	if cfg.Source == nil || cfg.Emit == nil {
		return errors.New("sheet: BuilderConfig needs Source and Emit")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tiler
	if t == nil || b.closed || t.limits != withDefaultLimits(cfg.Limits) {
		nt, err := NewTiler(cfg.Limits)
		if err != nil {
			return err
		}
		if t != nil && !b.closed {
			t.Close()
		}
		t = nt
	}
	old := b.builderState
	b.builderState = builderState{cfg: cfg, r: cfg.Recipe, half: cfg.Recipe.Interval / 2, tiler: t,
		canvas: old.canvas, fbuf: old.fbuf, jpeg: old.jpeg[:0], logged: old.logged}
	clear(b.logged)
	if b.logged == nil {
		b.logged = map[string]bool{}
	}
	b.tiles = old.tiles[:0]
	if n := b.r.TilesPerSheet(); cap(b.tiles) < n {
		b.tiles = make([]TileMeta, 0, n)
	}
	if !cfg.NoTileCache {
		b.cache = old.cache.reuse(2 * 3600 * int(time.Second/b.r.Interval) / 2)
	}
	return nil
}

// withDefaultLimits is limits with zero meaning the defaults, as NewTiler
// takes them.
func withDefaultLimits(limits turbojpeg.Limits) turbojpeg.Limits {
	if limits == (turbojpeg.Limits{}) {
		return turbojpeg.DefaultLimits
	}
	return limits
}
