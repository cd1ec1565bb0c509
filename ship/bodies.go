package ship

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// SheetBody encodes a sheet with its metadata (compact JSON, the
// receiver writes it beside the JPEG). segment < 0 is a contact sheet;
// otherwise the labeling sheet of that segment, indexed by it. The body
// is the caller's (a Shipper encodes in scratch it reuses, bodyScratch).
func SheetBody(s *sheet.Sheet, segment int) ([]byte, error) {
	return new(bodyScratch).encode(s, segment)
}

// bodyScratch encodes sheet bodies into buffers it reuses: a body is as
// large as its JPEG (over 100 KiB for a 720p camera), and the uplink
// copies it into the outbox before Enqueue returns, so a Shipper lends
// the same buffers to sheet after sheet (bodies) instead of allocating
// them. Not safe for concurrent use: one caller at a time.
type bodyScratch struct {
	meta bytes.Buffer
	enc  *json.Encoder
	body []byte
}

// encode encodes the wire body of s (see SheetBody) in sc's buffers,
// valid until sc encodes again.
func (sc *bodyScratch) encode(s *sheet.Sheet, segment int) ([]byte, error) {
	if sc.enc == nil {
		sc.enc = json.NewEncoder(&sc.meta)
	}
	sc.meta.Reset()
	if err := sc.enc.Encode(&s.Meta); err != nil {
		return nil, fmt.Errorf("ship: sheet metadata: %w", err)
	}
	meta := bytes.TrimSuffix(sc.meta.Bytes(), []byte("\n")) // Encode ends a value with one
	idx := int64(s.Meta.Index)
	if segment >= 0 {
		idx = int64(segment)
	}
	b, err := (&wire.SheetBody{Camera: s.Meta.CameraID(), Index: idx, Segment: int64(segment), Name: sheet.Name(s),
		Meta: meta, JPEG: s.JPEG}).MarshalMsg(sc.body[:0])
	if err != nil {
		return nil, err
	}
	sc.body = b
	return b, nil
}

// maxFreeBodies bounds the scratch a Shipper keeps between sheets: its
// callers at once, in practice one (the sheet loop).
const maxFreeBodies = 4

// bodies is a Shipper's free list of bodyScratch, safe for concurrent
// use. Not a sync.Pool: a garbage collection empties one, and sheets
// come seconds apart, so it would rarely hold a buffer when one is needed.
type bodies struct {
	mu   sync.Mutex
	free []*bodyScratch
}

// get lends scratch (a new one when none is free); give it back with put.
func (l *bodies) get() *bodyScratch {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		sc := l.free[n-1]
		l.free = l.free[:n-1]
		return sc
	}
	return new(bodyScratch)
}

// put takes back scratch lent by get, keeping at most maxFreeBodies.
func (l *bodies) put(sc *bodyScratch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < maxFreeBodies {
		l.free = append(l.free, sc)
	}
}
