package episode

import (
	"maps"
	"slices"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// The wire forms of a manifest and a segment (uplink/wire), both ways:
// the robot ships with ToWire, a receiver stores with FromWire. This is
// the one place that mapping lives; TestWireRoundTrip fills every field.
// A manifest's receiver-side fields (Held, Complete, Cost, EndArrived)
// and the robot's own bookkeeping (Uploaded, Recovery, RecoveryShipped,
// Lacking, Problem) do not travel.

// ManifestToWire is m's wire form.
func ManifestToWire(m Manifest) *wire.Manifest {
	w := &wire.Manifest{ID: m.ID, Robot: m.Robot, Name: m.Name, Instruction: m.Instruction,
		Start: unixNano(m.Start), End: unixNano(m.End), Closed: m.Closed, Outcome: m.Outcome,
		EndReason: m.EndReason, Segments: int64(m.Segments), Transitions: int64(m.Transitions), Created: unixNano(m.Created)}
	for _, cam := range slices.Sorted(maps.Keys(m.Produced)) {
		c := m.Produced[cam]
		w.Produced = append(w.Produced, wire.CameraCount{Camera: cam, Sheets: int64(c.Sheets), LabelSheets: int64(c.LabelSheets),
			Snippets: int64(c.Snippets), SheetTokens: int64(c.SheetTokens), LabelTokens: int64(c.LabelTokens), LastSheet: int64(c.LastSheet)})
	}
	for _, v := range m.Verdicts {
		w.Verdicts = append(w.Verdicts, wire.Verdict{Check: v.Check, Sat: v.Sat, Witness: v.Witness})
	}
	return w
}

// ManifestFromWire is the manifest w describes (Format set; a camera is
// named by its directory, CameraDir).
func ManifestFromWire(w *wire.Manifest) Manifest {
	m := Manifest{Format: ManifestFormat, ID: w.ID, Robot: w.Robot, Name: w.Name,
		Instruction: w.Instruction, Start: fromUnixNano(w.Start), End: fromUnixNano(w.End), Closed: w.Closed, Outcome: w.Outcome,
		EndReason: w.EndReason, Segments: int(w.Segments), Transitions: int(w.Transitions), Created: fromUnixNano(w.Created)}
	for _, c := range w.Produced {
		if m.Produced == nil {
			m.Produced = map[string]CameraCounts{}
		}
		m.Produced[CameraDir(c.Camera)] = CameraCounts{Sheets: int(c.Sheets), LabelSheets: int(c.LabelSheets),
			Snippets: int(c.Snippets), SheetTokens: int(c.SheetTokens), LabelTokens: int(c.LabelTokens), LastSheet: int(c.LastSheet)}
	}
	for _, v := range w.Verdicts {
		m.Verdicts = append(m.Verdicts, Verdict{Check: v.Check, Sat: v.Sat, Witness: v.Witness})
	}
	return m
}

// ClipToWire is c's wire form (a clip message's body).
func ClipToWire(c ClipEntry) *wire.Clip {
	return &wire.Clip{Name: c.Name, Kind: c.Kind, At: unixNano(c.At), Bytes: c.Bytes, SHA256: c.SHA256, Where: c.Where}
}

// ClipFromWire is the clip w announces (unchecked: CheckClipEntry).
func ClipFromWire(w *wire.Clip) ClipEntry {
	return ClipEntry{Name: w.Name, Kind: w.Kind, At: fromUnixNano(w.At), Bytes: w.Bytes, SHA256: w.SHA256, Where: w.Where}
}

// SegmentToWire is s's wire form.
func SegmentToWire(s Segment) *wire.Segment {
	return &wire.Segment{Index: int64(s.Index), Start: unixNano(s.Start), End: unixNano(s.End),
		StartSec: s.StartSec, EndSec: s.EndSec, Label: s.Label, Path: s.Path, Source: s.Source, Kind: s.Kind,
		Outcome: s.Outcome, GoalID: s.GoalID, Args: s.Args}
}

// SegmentFromWire is the segment w describes.
func SegmentFromWire(w *wire.Segment) Segment {
	return Segment{Index: int(w.Index), Start: fromUnixNano(w.Start), End: fromUnixNano(w.End), StartSec: w.StartSec,
		EndSec: w.EndSec, Label: w.Label, Path: w.Path, Source: w.Source, Kind: w.Kind, Outcome: w.Outcome, GoalID: w.GoalID, Args: w.Args}
}

// unixNano is t in Unix nanoseconds, 0 for the zero time (not set).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnixNano is unixNano's inverse (UTC).
func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
