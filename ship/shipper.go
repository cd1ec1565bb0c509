package ship

import (
	"fmt"
	"sync"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Config of a Shipper; zero values take the defaults.
type Config struct {
	// Snippet configures the joint-state recorder.
	Snippet SnippetConfig
}

// Stats are cumulative counts.
type Stats struct {
	Snippets       uint64 // snippets cut and queued with their sheet
	JointsOverflow uint64 // joint samples pushed out of the recorder's ring
}

// Shipper turns the pipeline's products into messages of an uplink.
// Create it with New; safe for concurrent use.
type Shipper struct {
	up     *uplink.Uplink
	robot  string
	snips  *Recorder
	bodies bodies // sheet bodies' buffers, reused from sheet to sheet

	mu       sync.Mutex
	produced map[string]map[string]episode.CameraCounts // episode id -> camera dir -> counts
	snippets uint64
}

// New returns a Shipper that enqueues into up.
func New(up *uplink.Uplink, cfg Config) *Shipper {
	return &Shipper{up: up, robot: up.Robot(), snips: NewRecorder(cfg.Snippet),
		produced: map[string]map[string]episode.CameraCounts{}}
}

// CheckEpisode is the uplink's Options.CheckEpisode for robot: the
// receiver takes only episode ids of the robot that sends them.
func CheckEpisode(robot string) func(string) error {
	return func(id string) error { return episode.CheckID(robot, id) }
}

// PutJoints keeps a joint sample for the snippets (never blocks).
func (s *Shipper) PutJoints(js capture.JointSample) { s.snips.PutJoints(js) }

// Stats returns a snapshot.
func (s *Shipper) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Snippets: s.snippets, JointsOverflow: s.snips.Dropped()}
}

// EpisodeStarted enqueues an episode_start message.
func (s *Shipper) EpisodeStarted(m episode.Manifest) error {
	return s.manifest(wire.KindEpisodeStart, 0, m)
}

// EpisodeEnded enqueues the end manifest, announcing what this Shipper
// shipped of the episode (per camera), so the receiver can tell when it
// holds everything; a manifest that already carries Produced keeps it
// (the store never sets it: a caller that knows better does). Call it
// after the episode's last sheets.
func (s *Shipper) EpisodeEnded(m episode.Manifest) error {
	s.mu.Lock()
	if m.Produced == nil {
		m.Produced = s.produced[m.ID]
	}
	delete(s.produced, m.ID)
	s.mu.Unlock()
	return s.manifest(wire.KindEpisodeEnd, 1, m)
}

func (s *Shipper) manifest(kind string, seq uint64, m episode.Manifest) error {
	b, err := episode.ManifestToWire(m).MarshalMsg(nil)
	if err != nil {
		return fmt.Errorf("ship: %s: %w", kind, err)
	}
	return s.enqueue(uplink.Message{Priority: outbox.PriorityControl, Episode: m.ID, Kind: kind, Seq: seq, Body: b})
}

// Segment enqueues a closed segment of episode m.
func (s *Shipper) Segment(m episode.Manifest, seg episode.Segment) error {
	b, err := episode.SegmentToWire(seg).MarshalMsg(nil)
	if err != nil {
		return fmt.Errorf("ship: segment: %w", err)
	}
	return s.enqueue(uplink.Message{Priority: outbox.PriorityControl, Episode: m.ID, Kind: wire.KindSegment,
		Seq: uint64(seg.Index), Body: b})
}

// Sheet enqueues a contact sheet of episode and its state snippet (cut
// from the recorder now, so call it once the sheet's last tick passed).
// The snippet goes at a higher priority than the sheet: when the outbox
// is full the sheet may be evicted, the snippet is not.
func (s *Shipper) Sheet(episodeID string, sh *sheet.Sheet) error {
	snip, err := wire.EncodeSnippet(s.snips.ForSheet(episodeID, &sh.Meta))
	if err != nil {
		return fmt.Errorf("ship: snippet: %w", err)
	}
	sc := s.bodies.get()
	defer s.bodies.put(sc) // after Enqueue, which copies the body
	body, err := sc.encode(sh, -1)
	if err != nil {
		return err
	}
	s.count(episodeID, sh.Meta.CameraID(), func(c *episode.CameraCounts) {
		c.Sheets++
		c.Snippets++
		c.SheetTokens += sh.Meta.Tokens
		c.LastSheet = max(c.LastSheet, sh.Meta.Index)
	})
	s.mu.Lock()
	s.snippets++
	s.mu.Unlock()
	seq, cam := uint64(sh.Meta.Index), episode.CameraDir(sh.Meta.CameraID())
	return s.enqueue(
		uplink.Message{Priority: outbox.PrioritySnippet, Episode: episodeID, Kind: wire.KindSnippet, Seq: seq, Camera: cam, Body: snip},
		uplink.Message{Priority: outbox.PrioritySheet, Episode: episodeID, Kind: wire.KindSheet, Seq: seq, Camera: cam, Body: body})
}

// LabelSheet enqueues the labeling sheet of segment index of episode.
func (s *Shipper) LabelSheet(episodeID string, segment int, sh *sheet.Sheet) error {
	sc := s.bodies.get()
	defer s.bodies.put(sc) // after Enqueue, which copies the body
	body, err := sc.encode(sh, segment)
	if err != nil {
		return err
	}
	s.count(episodeID, sh.Meta.CameraID(), func(c *episode.CameraCounts) {
		c.LabelSheets++
		c.LabelTokens += sh.Meta.Tokens
	})
	return s.enqueue(uplink.Message{Priority: outbox.PrioritySheet, Episode: episodeID, Kind: wire.KindLabelSheet,
		Seq: uint64(segment), Camera: episode.CameraDir(sh.Meta.CameraID()), Body: body})
}

// Clip enqueues the announcement of an incident clip of episodeID: it
// was written (c.Where episode.ClipOnRobot) or uploaded (an s3:// URL).
// It is not kept for the episode's acknowledgement (the receiver does
// not count clips to complete an episode, and a clip may come after
// it); the outbox holds it until the broker takes it.
func (s *Shipper) Clip(episodeID string, c episode.ClipEntry) error {
	b, err := episode.ClipToWire(c).MarshalMsg(nil)
	if err != nil {
		return fmt.Errorf("ship: clip: %w", err)
	}
	if err := episode.CheckID(s.robot, episodeID); err != nil {
		return fmt.Errorf("ship: clip not queued: %w", err)
	}
	return s.up.Enqueue(uplink.Message{Priority: outbox.PriorityControl, Episode: episodeID, Kind: wire.KindClip, Body: b})
}

// enqueue refuses an episode id of another robot (the receiver would
// drop it) before anything is queued. What it ships of an episode is
// kept until the receiver acknowledges the episode (Keep), but for a
// session's: no end manifest closes a session at the receiver.
func (s *Shipper) enqueue(msgs ...uplink.Message) error {
	for i, m := range msgs {
		if err := episode.CheckID(s.robot, m.Episode); err != nil {
			return fmt.Errorf("ship: %s not queued: %w", m.Kind, err)
		}
		msgs[i].Keep = !episode.IsSession(m.Episode)
	}
	return s.up.Enqueue(msgs...)
}

// count adds to what was produced of an episode's camera: what the
// pipeline made, queued or not (an evicted sheet shows as missing).
func (s *Shipper) count(episodeID, camera string, add func(*episode.CameraCounts)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cams := s.produced[episodeID]
	if cams == nil {
		cams = map[string]episode.CameraCounts{}
		s.produced[episodeID] = cams
	}
	c := cams[episode.CameraDir(camera)]
	add(&c)
	cams[episode.CameraDir(camera)] = c
}
