package episode

import (
	"maps"
	"slices"
	"strings"
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

// lacksOf lists, up to limit, the pieces the closed manifest m announced
// that are not held: segment indexes below m.Segments (hasSegment), and
// per camera the contact sheets 1..Sheets, their snippets 1..Snippets
// and the labeling sheets of the segments (a robot makes one per
// segment and camera) as long as fewer are held than announced (has:
// the files, relative to the episode). more reports that there are
// others besides.
//
// Every loop ends after at most as many steps as files held plus limit,
// whatever the counts a robot announced.
func lacksOf(m *Manifest, hasSegment func(int) bool, files map[string]bool, limit int) (pieces []wire.Piece, more bool) {
	has := func(rel string) bool { return files[rel] }
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
	for _, cam := range slices.Sorted(maps.Keys(m.Produced)) {
		c := m.Produced[cam]
		for i := 1; i <= c.Sheets; i++ {
			if !has(SheetsDir+"/"+cam+"/"+SheetName(i)+".json") && !add(wire.Piece{Kind: wire.KindSheet, Camera: cam, Index: int64(i)}) {
				return pieces, more
			}
		}
		for i := 1; i <= c.Snippets; i++ {
			if !has(SnippetsDir+"/"+cam+"/"+SheetName(i)+SnippetExt) && !add(wire.Piece{Kind: wire.KindSnippet, Camera: cam, Index: int64(i)}) {
				return pieces, more
			}
		}
		dir := LabelsDir + "/" + cam + "/"
		held := 0
		for rel := range files {
			if strings.HasPrefix(rel, dir+"label-") && strings.HasSuffix(rel, ".json") {
				held++
			}
		}
		for i := 0; held < c.LabelSheets && i < max(m.Segments, c.LabelSheets); i++ {
			if has(dir + LabelName(i) + ".json") {
				continue
			}
			held++ // counted as lacking
			if !add(wire.Piece{Kind: wire.KindLabelSheet, Camera: cam, Index: int64(i)}) {
				return pieces, more
			}
		}
	}
	return pieces, more
}
