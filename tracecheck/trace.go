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
		el := r.element(s.Label, s.Kind, s.Path)
		if s.Kind == "actionlib" && len(s.Args) > 0 && r.Map[s.Label] == "" {
			el.Args = s.Args // the goal's fields (recorded from the goal topic)
		}
		el.Start, el.End = s.StartSec, s.EndSec
		t = append(t, el)
		last = max(last, s.StartSec)
	}
	if e.Manifest.Closed {
		return t
	}
	for _, tr := range e.Transitions { // states opened and not yet closed
		if tr.Opens == "" || tr.Sec <= last || (fsm != "" && tr.Source != fsm) {
			continue
		}
		el := r.element(tr.Opens, tr.SrcTyp, tr.Path)
		el.Start, el.End = tr.Sec, tr.Sec
		t = append(t, el)
	}
	return t
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
