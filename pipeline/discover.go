package pipeline

import (
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
)

// discoveryState remembers the topics discovery refused in its last
// round, so that a refusal is logged and counted once while it lasts,
// not every round.
type discoveryState struct {
	mu      sync.Mutex
	refused map[string]bool
	total   atomic.Uint64 // edged_discovery_refused_total
}

// maxRemembered bounds the refused topics remembered between rounds (a
// flood beyond it is counted again each round rather than held).
const maxRemembered = 4096

// Discovered fills the roles the config leaves empty (cams, joints)
// from the graph's published topics as the discovery section allows:
// not at all when discovery.enabled is false; else capture.Discover's
// picks, at most discovery.max_cameras and max_joints, those cur
// captures already first, so a newcomer never pushes out a topic being
// recorded. The rest are refused, logged and counted. ROS1 and ROS 2
// share it.
func (p *Pipeline) Discovered(cfg *config.Config, cur *Topology, cams, joints []string, published []capture.TopicType) ([]string, []string) {
	if !cfg.Discovery.Enabled {
		return cams, joints
	}
	foundCams, foundJoints := capture.Discover(published)
	var refused []string
	if len(cams) == 0 {
		cams, refused = capDiscovered(foundCams, cur.wanted, cfg.Discovery.MaxCameras)
	}
	if len(joints) == 0 {
		var r []string
		joints, r = capDiscovered(foundJoints, cur.joints, cfg.Discovery.MaxJoints)
		refused = append(refused, r...)
	}
	p.discovery.note(p.log, refused)
	return cams, joints
}

// capDiscovered keeps at most max of found (sorted), those in current
// first, and returns the others as refused.
func capDiscovered(found, current []string, max int) (kept, refused []string) {
	for _, t := range current {
		if len(kept) < max && slices.Contains(found, t) && !slices.Contains(kept, t) {
			kept = append(kept, t)
		}
	}
	for _, t := range found {
		switch {
		case slices.Contains(kept, t):
		case len(kept) < max:
			kept = append(kept, t)
		default:
			refused = append(refused, t)
		}
	}
	slices.Sort(kept)
	return kept, refused
}

// note counts and logs the topics refused this round that were not
// refused in the last one.
func (s *discoveryState) note(log *slog.Logger, refused []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []string
	next := make(map[string]bool, min(len(refused), maxRemembered))
	for _, t := range refused {
		if !s.refused[t] {
			fresh = append(fresh, t)
		}
		if len(next) < maxRemembered {
			next[t] = true
		}
	}
	s.refused = next
	if len(fresh) == 0 {
		return
	}
	s.total.Add(uint64(len(fresh)))
	if log != nil {
		log.Warn("daemon: discovered topics not captured: over discovery.max_cameras or discovery.max_joints "+
			"(configure the cameras and joints to record, or raise the cap)",
			"refused", len(fresh), "first", fresh[:min(len(fresh), 5)], "refused_total", s.total.Load())
	}
}
