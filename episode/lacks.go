package episode

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// Lack is what a receiver lacks of an episode (Receiver.Lacking, and
// Load for a receiver's episode that its end manifest closed but that is
// not complete): the pieces, named as the robot keeps them (wire.Piece),
// that the end manifest announced and the store does not hold.
type Lack struct {
	Closed   bool `json:"closed"` // the end manifest arrived
	Complete bool `json:"complete"`
	// Since is when the end manifest arrived (Manifest.EndArrived; zero
	// from receivers before it).
	Since  time.Time    `json:"since,omitzero"`
	Pieces []wire.Piece `json:"pieces"`
	More   bool         `json:"more,omitempty"` // more pieces are lacking than were listed
}

// LacksOf lists, up to limit, the pieces the closed manifest m announced
// that are not held: segment indexes below m.Segments (hasSegment), and
// per camera, where fewer are held than announced, the contact sheets
// and their snippets 1..max(Sheets, LastSheet) and the labeling sheets
// of the segments (a robot makes one per segment and camera) that are
// not among files (relative to the episode). An index the robot skipped
// or never made is asked for too: the robot answers that it has none.
// more reports that there are others besides.
//
// The files are counted once; then every loop step either finds a held
// file or adds a piece, so the work is files + limit whatever counts a
// robot announced.
func LacksOf(m *Manifest, hasSegment func(int) bool, names []string, limit int) (pieces []wire.Piece, more bool) {
	add := func(p wire.Piece) bool {
		if len(pieces) == limit {
			more = true
			return false
		}
		pieces = append(pieces, p)
		return true
	}
	for i := range m.Segments {
		if !hasSegment(i) && !add(wire.Piece{Kind: wire.KindSegment, Index: int64(i)}) {
			return pieces, more
		}
	}
	files := make(map[string]bool, len(names))
	for _, n := range names {
		files[n] = true
	}
	held := HeldOf(names, 0).Cameras
	for _, cam := range slices.Sorted(maps.Keys(m.Produced)) {
		want, got := m.Produced[cam], held[cam]
		for _, k := range []struct {
			short      bool
			kind, path string
			first      int
			last       int
		}{
			{got.Sheets < want.Sheets, wire.KindSheet, SheetsDir + "/" + cam + "/%s.json", 1, max(want.Sheets, want.LastSheet)},
			{got.Snippets < want.Snippets, wire.KindSnippet, SnippetsDir + "/" + cam + "/%s" + SnippetExt, 1, max(want.Snippets, want.LastSheet)},
			{got.LabelSheets < want.LabelSheets, wire.KindLabelSheet, LabelsDir + "/" + cam + "/%s.json", 0, max(m.Segments, want.LabelSheets) - 1},
		} {
			for i := k.first; k.short && i <= k.last; i++ {
				name := SheetName(i)
				if k.kind == wire.KindLabelSheet {
					name = LabelName(i)
				}
				if files[fmt.Sprintf(k.path, name)] {
					continue
				}
				if !add(wire.Piece{Kind: k.kind, Camera: cam, Index: int64(i)}) {
					return pieces, more
				}
			}
		}
	}
	return pieces, more
}
