package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/clip/upload"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
)

// The clip stage (package clip) when clips.enabled: made by NewRunner,
// on its own goroutine in a live run (StartSheetLoop), written on the
// runner's in a replay (deterministic); fed by the runner's events and
// ticks and by the joint sink; closed by Stop after the sheet loop.

// ErrClipsDisabled is returned by Clip when clips.enabled is false.
var ErrClipsDisabled = errors.New("clips are disabled: set clips.enabled: true in the config")

// startClips makes the clip stage (once).
func (p *Pipeline) startClips() {
	if !p.cfg.Clips.Enabled || p.clips.Load() != nil {
		return
	}
	u := p.startUploads()
	onWritten := func(r clip.Result) { // announced to the sink, then uploaded
		p.announceClip(r)
		if u != nil {
			u.Add(r.Path)
		}
	}
	s, err := clip.New(p.cfg.Clips.Policy(), clip.Options{Logger: p.log, StoreDir: p.store.Dir(),
		Cameras: p.clipCameras, Sync: !p.live, ROS2: p.opts.ROS2, OnWritten: onWritten})
	if err != nil { // Check validated the config: a TurboJPEG handle failed
		p.log.Error("daemon: no incident clips", "err", err)
		return
	}
	p.clips.Store(s)
	p.joints.clips.Store(s.History())
}

// SetROS2 sets Options.ROS2 for a pipeline whose robot's ROS version is
// known only once its input opens (a replay's recordings). Call it
// before NewRunner: the clip stage keeps the version it was made with.
func (p *Pipeline) SetROS2(ros2 bool) { p.opts.ROS2 = ros2 }

// startUploads makes the clip uploader when clips.upload is set (a live
// run only: a replay's clips stay where it writes them).
func (p *Pipeline) startUploads() *upload.Uploader {
	if p.cfg.Clips.Upload == "" || !p.live {
		return nil
	}
	u, err := upload.New(p.cfg.Clips.Policy(), upload.Options{Logger: p.log, StoreDir: p.store.Dir(),
		OnUploaded: p.clipUploaded})
	if err != nil { // Check validated the config
		p.log.Error("daemon: clips are not uploaded", "err", err)
		return nil
	}
	p.uploads.Store(u)
	return u
}

// clipUploaded is the uploader's OnUploaded: the sink's manifest learns
// where the clip now is.
func (p *Pipeline) clipUploaded(episodeID, clipName, url string) {
	if err := p.ClipUploaded(episodeID, clipName, url); err != nil {
		p.log.Warn("daemon: clip uploaded but its new place not announced; the sink's manifest still says it is on the robot",
			"clip", clipName, "url", url, "err", err)
	}
}

// UploadStats are the clip uploader's counts (ok false: no upload).
func (p *Pipeline) UploadStats() (upload.Stats, bool) {
	if u := p.uploads.Load(); u != nil {
		return u.Stats(), true
	}
	return upload.Stats{}, false
}

// clipCameras are the cameras of the current topology as clip reads them.
func (p *Pipeline) clipCameras() []clip.Camera {
	cams := p.topo.Load().cams
	out := make([]clip.Camera, 0, len(cams))
	for _, c := range cams {
		if c.ring != nil {
			out = append(out, clip.Camera{Name: c.name, Topic: c.topic, Ring: c.ring})
		}
	}
	return out
}

// Clip triggers a clip now (an operator's request, on the stream
// clock's latest tick) with reason; see clip.Stage.Trigger.
func (p *Pipeline) Clip(reason string) (*clip.Pending, error) {
	s := p.clips.Load()
	if s == nil {
		return nil, ErrClipsDisabled
	}
	return s.Trigger(clip.Trigger{Kind: clip.KindRequest, Reason: reason})
}

// ClipStats are the clip stage's counts (ok false: clips disabled).
func (p *Pipeline) ClipStats() (clip.Stats, bool) {
	if s := p.clips.Load(); s != nil {
		return s.Stats(), true
	}
	return clip.Stats{}, false
}

// closeClips stops the clip stage (after the sheet loop).
func (p *Pipeline) closeClips() {
	if s := p.clips.Load(); s != nil {
		s.Close()
	}
	if u := p.uploads.Load(); u != nil {
		u.Close() // after the stage that hands it clips
	}
}

// clipEvent feeds the clip stage one of the fsm stage's events and
// triggers the clips the config asks for.
func (r *Runner) clipEvent(ev episodeEvent) {
	s := r.p.clips.Load()
	if s == nil {
		return
	}
	cfg := s.Config()
	switch ev.kind {
	case stateChanged:
		t := ev.transition
		s.History().Transition(t)
		if t.Kind == episode.TransitionState && slices.Contains(cfg.OnStates, t.To) {
			_, _ = s.Trigger(clip.Trigger{Kind: clip.KindState, Time: t.Stamp, Reason: "entered " + t.To}) // a refusal is logged and counted
		}
	case segmentClosed:
		g := ev.segment
		s.History().SegmentClosed(g)
		if cfg.OnGoalFailure && g.Kind == fsmkind.Actionlib && g.Outcome == episode.Aborted {
			_, _ = s.Trigger(clip.Trigger{Kind: clip.KindGoal, Time: g.End, Reason: fmt.Sprintf("goal %s (%s) aborted", g.GoalID, g.Label),
				Episode: clip.Episode{ID: ev.manifest.ID, Dir: r.episodeDir(ev.manifest.ID)}})
		}
	case episodeEnded:
		m := ev.manifest
		if cfg.OnFailureOutcome && failed(m) {
			_, _ = s.Trigger(clip.Trigger{Kind: clip.KindOutcome, Time: m.End, Reason: fmt.Sprintf("episode %s (%s)", m.Outcome, m.EndReason),
				Episode: clip.Episode{ID: m.ID, Dir: r.episodeDir(m.ID)}})
		}
		if unsat := unsatChecks(m.Verdicts); cfg.OnUnsat && len(unsat) > 0 {
			_, _ = s.Trigger(clip.Trigger{Kind: clip.KindUnsat, Time: m.End, Reason: "UNSAT: " + strings.Join(unsat, ", "),
				Episode: clip.Episode{ID: m.ID, Dir: r.episodeDir(m.ID)}})
		}
	}
}

// unsatChecks names the checks judged UNSAT (the runner judged them
// before the episode's end reached the clip stage).
func unsatChecks(vs []episode.Verdict) []string {
	var out []string
	for _, v := range vs {
		if !v.Sat {
			out = append(out, v.Check)
		}
	}
	return out
}

// failed: an episode that ended aborted, or interrupted by anything but
// edged stopping (whose clip could not be written anyway).
func failed(m episode.Manifest) bool {
	return m.Outcome == episode.Aborted || m.Outcome == episode.Interrupted && m.EndReason != episode.EndShutdown
}

// clipEpisode tells the clip stage which episode clips now belong to.
func (r *Runner) clipEpisode(id, dir string) {
	if s := r.p.clips.Load(); s != nil {
		s.History().EpisodeBegan(clip.Episode{ID: id, Dir: dir})
	}
}

func (r *Runner) episodeDir(id string) string { return filepath.Join(r.storeDir, id) }

// clipTick moves the clip stage's clock; clipFlush writes what waits
// (the end of a replay).
func (r *Runner) clipTick(now time.Time) {
	if s := r.p.clips.Load(); s != nil {
		s.Advance(now)
	}
}

func (r *Runner) clipFlush() {
	if s := r.p.clips.Load(); s != nil {
		s.Flush()
	}
}
