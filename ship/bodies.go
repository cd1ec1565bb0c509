package ship

import (
	"encoding/json"
	"fmt"

	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

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
