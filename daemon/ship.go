package daemon

import (
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink"
)

// shipper is where the daemon hands what it makes: the uplink (edged
// run, or a replay to a broker), or nothing (a replay that only writes
// its output directory). Enqueue methods return once the message is
// durable; the Put methods never block.
type shipper interface {
	EpisodeStarted(m episode.Manifest) error
	EpisodeEnded(m episode.Manifest) error
	Segment(m episode.Manifest, s episode.Segment) error
	Sheet(episodeID string, s *sheet.Sheet) error
	LabelSheet(episodeID string, segment int, s *sheet.Sheet) error
	capture.JointSink
}

// uplinkShipper ships through an *uplink.Uplink.
type uplinkShipper struct{ *uplink.Uplink }

func (u uplinkShipper) PutJoints(s capture.JointSample) { u.Snippets().PutJoints(s) }

// noShipper ships nothing.
type noShipper struct{}

func (noShipper) EpisodeStarted(episode.Manifest) error           { return nil }
func (noShipper) EpisodeEnded(episode.Manifest) error             { return nil }
func (noShipper) Segment(episode.Manifest, episode.Segment) error { return nil }
func (noShipper) Sheet(string, *sheet.Sheet) error                { return nil }
func (noShipper) LabelSheet(string, int, *sheet.Sheet) error      { return nil }
func (noShipper) PutJoints(capture.JointSample)                   {}
