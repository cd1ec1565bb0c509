package pipeline

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet"
)

// camera is one configured or discovered camera and its frames.
type camera struct {
	topic string
	name  string // file-safe, used in paths and metadata
	ring  *ringbuf.Ring
}

// configuredName is the camera's name when the config gave it one (it
// then names the camera's directories, here and at the receiver), else "".
func (c camera) configuredName() string {
	if c.name == episode.CameraDir(c.topic) {
		return ""
	}
	return c.name
}

// sheetSession builds the sheets of one episode (or session): one Builder
// per camera on the episode's grid, plus, with sheet.ship_label_sheets,
// the labeling sheets of its segments once their last tick is final. Owned by the sheets' driver (Runner).
type sheetSession struct {
	id       string
	start    time.Time
	recipe   sheet.Recipe
	builders []*sheet.Builder
	topics   []string // per builder: its camera's topic
	spare    spareBuilders
	writers  []*sheet.DirWriter
	pending  []labelRequest
	log      *slog.Logger
	stats    *counters
	onSheet  func(camera string, index int, jpeg []byte)
	up       shipper
	spent    []time.Duration // per builder: work since its last sheet
	emitted  bool            // a sheet was emitted during the current call
	observe  func(seconds float64)

	// labelWriters: per builder, the camera's labeling sheet directory
	// (none unless the recipe ships labeling sheets).
	labelWriters []*sheet.DirWriter
}

type labelRequest struct {
	index      int
	start, end time.Time
}

func newSheetSession(id, dir string, start time.Time, r sheet.Recipe, cams []camera, spare spareBuilders, log *slog.Logger, st *counters,
	onSheet func(camera string, index int, jpeg []byte), up shipper, observe func(float64)) (*sheetSession, error) {
	s := &sheetSession{id: id, start: start, recipe: r, log: log, stats: st, onSheet: onSheet, up: up, observe: observe, spare: spare}
	defer spare.close() // what no camera of this session took
	for _, c := range cams {
		w, err := sheet.NewDirWriter(episode.SheetDir(dir, c.name))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("sheets of %s: %w", id, err)
		}
		if r.ShipLabelSheets {
			lw, err := sheet.NewDirWriter(episode.LabelDir(dir, c.name))
			if err != nil {
				s.close()
				return nil, fmt.Errorf("labeling sheets of %s: %w", id, err)
			}
			s.labelWriters = append(s.labelWriters, lw)
		}
		// Without shipping them, the robot neither composes labeling
		// sheets nor keeps the tiles they need: whoever reads the
		// episode composes them from the contact sheets
		// (sheet.LabelImage), as the cloud does.
		b, err := spare.take(c.topic, sheet.BuilderConfig{Camera: c.topic, Name: c.configuredName(), Recipe: r, Start: start, Source: c.ring,
			Emit: s.emitTo(w), Logger: log, NoTileCache: !r.ShipLabelSheets})
		if err != nil {
			s.close()
			return nil, fmt.Errorf("sheet builder for %s: %w", c.topic, err)
		}
		s.builders, s.writers = append(s.builders, b), append(s.writers, w)
		s.topics = append(s.topics, c.topic)
		s.spent = append(s.spent, 0)
	}
	return s, nil
}

func (s *sheetSession) emitTo(w *sheet.DirWriter) func(*sheet.Sheet) error {
	return func(sh *sheet.Sheet) error {
		if err := w.Write(sh); err != nil {
			s.stats.sheetErrors.Add(1)
			return err
		}
		s.stats.sheets.Add(1)
		s.stats.sheetBytes.Add(uint64(len(sh.JPEG)))
		s.emitted = true
		s.onSheet(sh.Meta.Camera, sh.Meta.Index, sh.JPEG)
		// The sheet with its state snippet; a full outbox evicts old
		// sheets and counts them, so an error here is a disk problem.
		return s.up.Sheet(s.id, sh)
	}
}

// settle is how long after a segment's end its last tick is final.
func (s *sheetSession) settle() time.Duration { return s.recipe.Interval/2 + s.recipe.Grace }

// advance finalizes ticks up to now and builds the labeling sheets whose
// segments have settled.
func (s *sheetSession) advance(now time.Time) {
	for i, b := range s.builders {
		s.timed(i, func() error { return b.Advance(now) }, "daemon: sheet not stored")
	}
	keep := s.pending[:0]
	for _, p := range s.pending {
		if now.Before(p.end.Add(s.settle())) {
			keep = append(keep, p)
			continue
		}
		s.label(p)
	}
	s.pending = keep
}

// timed runs builder i's step, adds its time to the builder's work, and
// observes that work when the step emitted a sheet.
func (s *sheetSession) timed(i int, step func() error, failure string) {
	s.emitted = false
	t0 := time.Now()
	err := step()
	s.spent[i] += time.Since(t0)
	if s.emitted {
		s.observe(s.spent[i].Seconds())
		s.spent[i] = 0
	}
	if err != nil {
		s.log.Warn(failure, "episode", s.id, "err", err)
	}
}

// segmentClosed queues the labeling sheet of a segment, when the robot
// ships them (sheet.ship_label_sheets).
func (s *sheetSession) segmentClosed(index int, start, end time.Time) {
	if !s.recipe.ShipLabelSheets {
		return
	}
	s.pending = append(s.pending, labelRequest{index: index, start: start, end: end})
}

// label builds, stores and ships the labeling sheet of a segment, one per
// camera: LabelSheet makes one for every segment, even one holding no
// tick, so every closed segment has its sheet. Only queued when the
// robot ships them (segmentClosed).
func (s *sheetSession) label(p labelRequest) {
	seg := sheet.Segment{Index: p.index, Start: p.start, End: p.end}
	for i, b := range s.builders {
		sh, err := b.LabelSheet(seg)
		if err == nil {
			err = s.labelWriters[i].Write(sh)
		}
		if err == nil {
			err = s.up.LabelSheet(s.id, p.index, sh)
		}
		if err != nil {
			s.stats.sheetErrors.Add(1)
			s.log.Warn("daemon: labeling sheet not stored", "episode", s.id, "segment", p.index, "err", err)
			continue
		}
		s.stats.labelSheets.Add(1)
	}
}

// finish ends the session at end: the last, shorter sheet of each camera,
// then every labeling sheet still pending.
func (s *sheetSession) finish(end time.Time) {
	for i, b := range s.builders {
		s.timed(i, func() error { return b.Finish(end) }, "daemon: last sheet not stored")
	}
	for _, p := range s.pending {
		s.label(p)
	}
	s.pending = nil
	s.close()
}

// close hands the builders to the spares, for the next session's.
func (s *sheetSession) close() {
	for i, b := range s.builders {
		s.spare.put(s.topics[i], b)
	}
	s.builders, s.topics = nil, nil
}

// spareBuilders keeps each camera's builder between sessions, so that the
// camera's builder of the next session is the same one reset
// (sheet.Builder.Reset: its TurboJPEG handles and megabytes of buffers
// kept) rather than a new one. Owned by the Runner, on its goroutine;
// the builders of cameras the next session lacks are closed when it
// opens, the rest when the Runner stops.
type spareBuilders map[string]*sheet.Builder

// take is the camera's spare builder reset for cfg, or a new one.
func (sp spareBuilders) take(topic string, cfg sheet.BuilderConfig) (*sheet.Builder, error) {
	b, ok := sp[topic]
	if !ok {
		return sheet.NewBuilder(cfg)
	}
	delete(sp, topic)
	if err := b.Reset(cfg); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (sp spareBuilders) put(topic string, b *sheet.Builder) {
	if old, ok := sp[topic]; ok {
		old.Close()
	}
	sp[topic] = b
}

// close closes every spare builder.
func (sp spareBuilders) close() {
	for topic, b := range sp {
		b.Close()
		delete(sp, topic)
	}
}
