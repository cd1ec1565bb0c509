package receive

import (
	"maps"
	"slices"

	"github.com/edged-robotics/edged/episode"
)

// Lacking says whether episode id of robot is closed and complete and,
// when it is closed but not complete, what it lacks (at most limit
// pieces; Lack.More when there are others): what the sink asks the
// robot for. An episode that holds everything although its manifest
// does not say so yet (receivers sharing the store raced) is completed
// here: completed reports it, as Manifest and the others do.
func (r *Receiver) Lacking(robot, id string, limit int) (l episode.Lack, completed bool, err error) {
	defer r.lockEpisode(id)()
	if r.opts.Shared {
		r.forget(id) // peers add files without touching the manifest
	}
	e, err := r.load(robot, id)
	if err != nil {
		return l, false, err
	}
	l = episode.Lack{Closed: e.m.Closed, Complete: e.m.Complete, Since: e.m.EndArrived}
	if !l.Closed || l.Complete {
		return l, false, nil
	}
	l.Pieces, l.More = episode.LacksOf(&e.m, func(i int) bool { _, ok := e.segs[i]; return ok }, slices.Collect(maps.Keys(e.files)), limit)
	if len(l.Pieces) > 0 || l.More {
		return l, false, nil
	}
	completed, err = r.update(robot, id, func(*received) error { return nil })
	if err != nil {
		return l, false, err
	}
	if e, err = r.load(robot, id); err != nil {
		return l, completed, err
	}
	l.Complete = e.m.Complete // what the manifest says now, not what lacksOf guessed
	return l, completed, nil
}

// held counts what e holds.
func (e *received) held() episode.Held {
	names := make([]string, 0, len(e.files))
	for rel := range e.files {
		names = append(names, rel)
	}
	return episode.HeldOf(names, len(e.segs))
}

// completeWith reports whether e's manifest would be complete with h.
func (e *received) completeWith(h episode.Held) bool {
	m := e.m
	m.Held = &h
	return episode.IsComplete(&m, func(i int) bool { _, ok := e.segs[i]; return ok })
}
