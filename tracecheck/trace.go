package tracecheck

import (
	"path"
	"sort"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/rtl"
)

// Trace is the episode's trace as the rules read it; fsm, when not "",
// keeps the segments of that FSM source only.
func (r *Rules) Trace(e *episode.Episode, fsm string) rtl.Trace {
	segs := make([]episode.Segment, 0, len(e.Segments))
	for _, s := range e.Segments {
		if fsm == "" || s.Source == fsm {
			segs = append(segs, s)
		}
	}
	sort.SliceStable(segs, func(i, j int) bool {
		if !segs[i].Start.Equal(segs[j].Start) {
			return segs[i].Start.Before(segs[j].Start)
		}
		return segs[i].Index < segs[j].Index
	})
	t := make(rtl.Trace, 0, len(segs))
	last := -1.0
	for _, s := range segs {
		el := r.goalArgs(r.element(s.Label, s.Kind, s.Path), s.Label, s.Kind, s.Args)
		el.Start, el.End = s.StartSec, s.EndSec
		t = append(t, el)
		last = max(last, s.StartSec)
	}
	if e.Manifest.Closed {
		return t
	}
	type opened struct {
		i     int // in t
		label string
	}
	goals := map[string]opened{}       // an open goal's key -> its element
	for _, tr := range e.Transitions { // states opened and not yet closed
		if fsm != "" && tr.Source != fsm {
			continue
		}
		key := tr.Source + "\x00" + tr.GoalID + "\x00" + tr.Path
		if g, ok := goals[key]; ok && tr.Kind == episode.TransitionGoal { // its arguments came after it opened
			t[g.i] = r.goalArgs(t[g.i], g.label, tr.SrcTyp, tr.Args)
			continue
		}
		if tr.Opens == "" || tr.Sec <= last {
			continue
		}
		el := r.goalArgs(r.element(tr.Opens, tr.SrcTyp, tr.Path), tr.Opens, tr.SrcTyp, tr.Args)
		el.Start, el.End = tr.Sec, tr.Sec
		if tr.GoalID != "" {
			goals[key] = opened{len(t), tr.Opens}
		}
		t = append(t, el)
	}
	return t
}

// goalArgs gives an actionlib goal's element its goal's fields
// (recorded from the goal topic) as arguments, unless the rules map
// the state.
func (r *Rules) goalArgs(el rtl.Element, label, kind string, args []string) rtl.Element {
	if kind == "actionlib" && len(args) > 0 && r.Map[label] == "" {
		el.Args = args
	}
	return el
}

// element reads one recorded state (see the package comment).
func (r *Rules) element(label, kind, statePath string) rtl.Element {
	if m, ok := r.Map[label]; ok {
		el := rtl.ParseElement(m)
		el.Label = label
		return el
	}
	if kind == "actionlib" && statePath != "" {
		action := path.Base(statePath)
		el := rtl.Element{Name: action, Label: label}
		if label != "" && label != statePath && label != action {
			el.Args = []string{label}
		}
		return el
	}
	el := rtl.ParseElement(label)
	if el.String() != label {
		el.Label = label
	}
	return el
}
