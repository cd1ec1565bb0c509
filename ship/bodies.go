package ship

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// ManifestBody converts an episode manifest to its wire form.
func ManifestBody(m episode.Manifest) *wire.Manifest {
	return &wire.Manifest{ID: m.ID, Robot: m.Robot, Name: m.Name, Instruction: m.Instruction,
		Start: unixNano(m.Start), End: unixNano(m.End), Closed: m.Closed, Outcome: m.Outcome,
		EndReason: m.EndReason, Segments: int64(m.Segments), Transitions: int64(m.Transitions), Created: unixNano(m.Created),
		Produced: produced(m.Produced), Verdicts: verdicts(m.Verdicts)}
}

func verdicts(vs []episode.Verdict) []wire.Verdict {
	var out []wire.Verdict
	for _, v := range vs {
		out = append(out, wire.Verdict{Check: v.Check, Sat: v.Sat, Witness: v.Witness})
	}
	return out
}

// produced lists the per-camera counts in camera order.
func produced(p map[string]episode.CameraCounts) []wire.CameraCount {
	out := make([]wire.CameraCount, 0, len(p))
	for cam, c := range p {
		out = append(out, wire.CameraCount{Camera: cam, Sheets: int64(c.Sheets), LabelSheets: int64(c.LabelSheets),
			Snippets: int64(c.Snippets), SheetTokens: int64(c.SheetTokens), LabelTokens: int64(c.LabelTokens)})
	}
	slices.SortFunc(out, func(a, b wire.CameraCount) int { return strings.Compare(a.Camera, b.Camera) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// SegmentBody converts a closed segment to its wire form.
func SegmentBody(s episode.Segment) *wire.Segment {
	return &wire.Segment{Index: int64(s.Index), Start: unixNano(s.Start), End: unixNano(s.End),
		StartSec: s.StartSec, EndSec: s.EndSec, Label: s.Label, Path: s.Path, Source: s.Source, Kind: s.Kind,
		Outcome: s.Outcome, GoalID: s.GoalID, Args: s.Args}
}

// SheetBody encodes a sheet with its metadata (compact JSON, the
// receiver writes it beside the JPEG). segment < 0 is a contact sheet;
// otherwise the labeling sheet of that segment, indexed by it.
func SheetBody(s *sheet.Sheet, segment int) ([]byte, error) {
	meta, err := json.Marshal(&s.Meta)
	if err != nil {
		return nil, fmt.Errorf("ship: sheet metadata: %w", err)
	}
	idx := int64(s.Meta.Index)
	if segment >= 0 {
		idx = int64(segment)
	}
	return (&wire.SheetBody{Camera: s.Meta.CameraID(), Index: idx, Segment: int64(segment), Name: sheet.Name(s),
		Meta: meta, JPEG: s.JPEG}).MarshalMsg(nil)
}

// unixNano is t in Unix nanoseconds, 0 for the zero time (not set).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
