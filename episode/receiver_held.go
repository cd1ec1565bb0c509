package episode

import (
	"maps"
	"slices"
	"strings"

	"github.com/edged-robotics/edged/blob"
)

// Lacking says whether episode id of robot is closed and complete and,
// when it is closed but not complete, what it lacks (at most limit
// pieces; Lack.More when there are others): what the sink asks the
// robot for. An episode that holds everything although its manifest
// does not say so yet (receivers sharing the store raced) is completed
// here: completed reports it, as Manifest and the others do.
func (r *Receiver) Lacking(robot, id string, limit int) (l Lack, completed bool, err error) {
	defer r.lockEpisode(id)()
	if r.opts.Shared {
		r.forget(id) // peers add files without touching the manifest
	}
	e, err := r.load(robot, id)
	if err != nil {
		return l, false, err
	}
	l = Lack{Closed: e.m.Closed, Complete: e.m.Complete, Since: e.m.EndArrived}
	if !l.Closed || l.Complete {
		return l, false, nil
	}
	l.Pieces, l.More = lacksOf(&e.m, func(i int) bool { _, ok := e.segs[i]; return ok }, slices.Collect(maps.Keys(e.files)), limit)
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
func (e *received) held() Held {
	names := make([]string, 0, len(e.files))
	for rel := range e.files {
		names = append(names, rel)
	}
	return heldOf(names, len(e.segs))
}

// blobNames are the names of files without prefix.
func blobNames(files []blob.Info, prefix string) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimPrefix(f.Name, prefix)
	}
	return names
}

// heldOf counts the sheets, labeling sheets and snippets per camera
// among an episode's files (names relative to the episode), with
// segments segment indexes held: what a receiver's manifest says it
// holds, and what readers count for an episode still open (Load).
func heldOf(names []string, segments int) Held {
	h := Held{Segments: segments}
	for _, rel := range names {
		parts := strings.Split(rel, "/")
		if len(parts) != 3 {
			continue
		}
		n := parts[2]
		add := func(f func(c *CameraCounts)) {
			if h.Cameras == nil {
				h.Cameras = map[string]CameraCounts{}
			}
			c := h.Cameras[parts[1]]
			f(&c)
			h.Cameras[parts[1]] = c
		}
		switch {
		case parts[0] == SheetsDir && strings.HasPrefix(n, SheetPrefix) && strings.HasSuffix(n, ".json"):
			add(func(c *CameraCounts) { c.Sheets++ })
		case parts[0] == LabelsDir && strings.HasPrefix(n, LabelPrefix) && strings.HasSuffix(n, ".json"):
			add(func(c *CameraCounts) { c.LabelSheets++ })
		case parts[0] == SnippetsDir && strings.HasPrefix(n, SheetPrefix) && strings.HasSuffix(n, SnippetExt):
			add(func(c *CameraCounts) { c.Snippets++ })
		}
	}
	return h
}

// IsComplete reports whether m, with the segment indexes in has, is
// complete: closed (the end manifest arrived), every segment index below
// m.Segments held, and per camera at least the Produced counts held.
func IsComplete(m *Manifest, has func(index int) bool) bool {
	if !m.Closed || m.Held == nil || m.Held.Segments < m.Segments {
		return false
	}
	for i := range m.Segments {
		if !has(i) {
			return false
		}
	}
	return holdsProduced(*m.Held, m.Produced)
}

// holdsProduced reports whether h holds, per camera, at least the
// sheets, labeling sheets and snippets produced announces.
func holdsProduced(h Held, produced map[string]CameraCounts) bool {
	for cam, want := range produced {
		got := h.Cameras[cam]
		if got.Sheets < want.Sheets || got.LabelSheets < want.LabelSheets || got.Snippets < want.Snippets {
			return false
		}
	}
	return true
}

// completeWith reports whether e's manifest would be complete with h.
func (e *received) completeWith(h Held) bool {
	m := e.m
	m.Held = &h
	return IsComplete(&m, func(i int) bool { _, ok := e.segs[i]; return ok })
}
