package episode

import (
	"strings"

	"github.com/edged-robotics/edged/blob"
)

// blobNames are the names of files without prefix.
func blobNames(files []blob.Info, prefix string) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimPrefix(f.Name, prefix)
	}
	return names
}

// HeldOf counts the sheets, labeling sheets and snippets per camera
// among an episode's files (names relative to the episode), with
// segments segment indexes held: what a receiver's manifest says it
// holds, and what readers count for an episode still open (Load).
func HeldOf(names []string, segments int) Held {
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
	return HoldsProduced(*m.Held, m.Produced)
}

// HoldsProduced reports whether h holds, per camera, at least the
// sheets, labeling sheets and snippets produced announces.
func HoldsProduced(h Held, produced map[string]CameraCounts) bool {
	for cam, want := range produced {
		got := h.Cameras[cam]
		if got.Sheets < want.Sheets || got.LabelSheets < want.LabelSheets || got.Snippets < want.Snippets {
			return false
		}
	}
	return true
}
