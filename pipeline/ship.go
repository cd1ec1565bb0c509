package pipeline

import (
	"errors"
	"io/fs"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// shipper is where the stages hand what they make: the shipping stage
// over the uplink (*ship.Shipper: edged run, or a replay to a broker),
// or nothing (a replay that only writes
// its output directory). Enqueue methods return once the message is
// durable; the Put methods never block.
type shipper interface {
	EpisodeStarted(m episode.Manifest) error
	EpisodeEnded(m episode.Manifest) error
	Segment(m episode.Manifest, s episode.Segment) error
	Sheet(episodeID string, s *sheet.Sheet) error
	LabelSheet(episodeID string, segment int, s *sheet.Sheet) error
	Clip(episodeID string, c episode.ClipEntry) error
	capture.JointSink
}

// ShipRecovered ships the episodes closed by crash recovery like any
// other: their segments (those shipped before the crash again, which the
// receiver writes to the same files with the same content, and the ones
// recovery added: interrupted, or rebuilt from the transitions) and then
// their closed manifest, so that the receiver does not keep them open
// forever. Each is marked once it is in the outbox; one not yet marked
// (edged was killed again before) is shipped at the next start.
func (p *Pipeline) ShipRecovered() {
	ms, err := episode.List(p.store.Dir())
	if err != nil {
		p.log.Error("daemon: recovered episodes not shipped", "err", err)
		return
	}
	for _, m := range ms {
		if !m.Closed || m.EndReason != episode.EndRecovered || m.RecoveryShipped {
			continue
		}
		if err := p.shipEpisode(m.ID); err != nil {
			p.log.Error("daemon: recovered episode not shipped; retried at the next start", "episode", m.ID, "err", err)
			continue
		}
		if err := p.store.MarkRecoveryShipped(m.ID); err != nil {
			p.log.Warn("daemon: recovered episode shipped but not marked; it is shipped again at the next start", "episode", m.ID, "err", err)
		}
	}
}

// shipEpisode puts a closed episode's segments and closed manifest in
// the outbox.
func (p *Pipeline) shipEpisode(id string) error {
	e, err := episode.Load(p.store.Dir(), id)
	if err != nil {
		return err
	}
	for _, s := range e.Segments {
		if err := p.out.Segment(e.Manifest, s); err != nil {
			return err
		}
	}
	return p.out.EpisodeEnded(e.Manifest)
}

// noShipper ships nothing.
type noShipper struct{}

func (noShipper) EpisodeStarted(episode.Manifest) error           { return nil }
func (noShipper) EpisodeEnded(episode.Manifest) error             { return nil }
func (noShipper) Segment(episode.Manifest, episode.Segment) error { return nil }
func (noShipper) Sheet(string, *sheet.Sheet) error                { return nil }
func (noShipper) LabelSheet(string, int, *sheet.Sheet) error      { return nil }
func (noShipper) Clip(string, episode.ClipEntry) error            { return nil }
func (noShipper) PutJoints(capture.JointSample)                   {}

// markLacking is the uplink's OnRepair: what the receiver said it lacks
// of an episode, for `edged inspect` (the status page and /metrics read
// the uplink's own view).
func (p *Pipeline) markLacking(id string, lacks []string, more bool) {
	err := p.store.MarkLacking(id, lacks, more, time.Now())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.log.Warn("daemon: what the receiver lacks not recorded in the episode", "episode", id, "err", err)
	}
}

// markUploaded is the uplink's OnUploaded: the receiver holds the
// episode complete, so it is the first the store's retention deletes.
// An episode already deleted, or a session (no manifest in the store),
// has nothing to mark.
func (p *Pipeline) markUploaded(id string) {
	err := p.store.MarkUploaded(id)
	switch {
	case err == nil:
		p.stats.uploaded.Add(1)
		p.log.Info("daemon: episode uploaded (the receiver holds it complete)", "episode", id)
	case errors.Is(err, fs.ErrNotExist):
		p.log.Debug("daemon: acknowledged episode is not in the store", "episode", id)
	default:
		p.log.Warn("daemon: episode not marked uploaded", "episode", id, "err", err)
	}
}
