package fsm

import (
	"sort"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// syncSource closes the open segments of src that are no longer active
// (with the outcome the source gave, else completed) and opens the new
// ones, recording the transition.
func (m *Machine) syncSource(src *source, stamp time.Time, from, to string, ended map[string]string) {
	if stamp.Before(m.w.Start()) {
		stamp = m.w.Start()
	}
	open := m.open[src]
	gone := map[string]bool{}
	for k, o := range open {
		if a, ok := src.cur[k]; !ok || a.label != o.label {
			gone[k] = true
		}
	}
	// A SMACH leaf that turns out to be a container (its own status
	// arrived after its parent's): its children inherit its start instead
	// of leaving a zero-length parent segment behind.
	inherit := map[string]time.Time{}
	if src.cfg.Kind == KindSmach {
		for k := range src.cur {
			for p := range gone {
				if _, isOpen := open[k]; !isOpen && strings.HasPrefix(k, p+"/") {
					inherit[k] = open[p].start
				}
			}
		}
		for k := range inherit {
			for p := range gone {
				if strings.HasPrefix(k, p+"/") {
					delete(open, p)
					delete(gone, p)
				}
			}
		}
	}
	closed := 0
	for _, k := range sortedKeys(gone) {
		outcome := episode.Completed
		if o, ok := ended[k]; ok {
			outcome = o
		}
		closed++
		m.closeSegment(src, k, stamp, outcome)
	}
	opened := 0
	for _, k := range sortedKeys(src.cur) {
		if _, ok := open[k]; ok {
			continue
		}
		a := src.cur[k]
		start, inherited := inherit[k]
		if !inherited {
			start = stamp
		}
		open[k] = openSeg{active: a, start: start}
		m.transition(src, stamp, start, from, to, a)
		opened++
	}
	if opened == 0 && (closed > 0 || from != to) {
		m.transition(src, stamp, stamp, from, to, active{})
	}
}

func (m *Machine) transition(src *source, stamp, start time.Time, from, to string, opens active) {
	t := episode.Transition{Stamp: stamp, Sec: stamp.Sub(m.w.Start()).Seconds(), Kind: episode.TransitionState,
		Source: src.cfg.Topic, SrcTyp: src.cfg.Kind, From: from, To: to, Opens: opens.label, Path: opens.path, GoalID: opens.goalID, Args: opens.args}
	if !start.Equal(stamp) {
		t.Start = start
	}
	m.storeErr(m.w.Transition(t))
	src.lastBeat = stamp.UnixNano()
	m.count(func(s *Stats) { s.Transitions++ })
	if o := m.cfg.Observer; o != nil {
		o.Transition(m.w.Manifest(), t)
	}
}

func (m *Machine) heartbeat(src *source, stamp time.Time) {
	if stamp.UnixNano()-src.lastBeat < int64(m.cfg.HeartbeatEvery) {
		return
	}
	src.lastBeat = stamp.UnixNano()
	m.storeErr(m.w.Transition(episode.Transition{Stamp: stamp, Sec: stamp.Sub(m.w.Start()).Seconds(),
		Kind: episode.TransitionHeartbeat, Source: src.cfg.Topic, SrcTyp: src.cfg.Kind, To: src.raw}))
	m.count(func(s *Stats) { s.Heartbeats++ })
}

func (m *Machine) closeSegment(src *source, key string, end time.Time, outcome string) {
	o := m.open[src][key]
	delete(m.open[src], key)
	if end.Before(o.start) {
		end = o.start
	}
	start := m.w.Start()
	seg := episode.Segment{Start: o.start, End: end, StartSec: o.start.Sub(start).Seconds(), EndSec: end.Sub(start).Seconds(),
		Label: o.label, Path: o.path, Source: src.cfg.Topic, Kind: src.cfg.Kind, Outcome: outcome, GoalID: o.goalID, Args: o.args}
	seg.Index = m.w.NextIndex()
	if err := m.w.Segment(seg); err != nil {
		m.storeErr(err) // kept in memory (store.ErrPending): retryStore writes it
		return
	}
	m.segmentStored(m.w, seg)
}

// segmentStored reports a durable segment.
func (m *Machine) segmentStored(w *epstore.Writer, seg episode.Segment) {
	if o := m.cfg.Observer; o != nil {
		o.SegmentClosed(w.Manifest(), seg)
	}
	m.count(func(s *Stats) { s.Segments++ })
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
