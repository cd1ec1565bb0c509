package xmlrpc

import (
	"fmt"
	"time"
)

// Limits of the decoder. They bound what one document can make us
// allocate beyond its own size.
const (
	// MaxDepth is the deepest nesting of arrays and structs accepted.
	MaxDepth = 64
	// MaxElements is the most values (scalars, arrays, structs) accepted
	// in one document.
	MaxElements = 1 << 20
)

// Fault is an XML-RPC fault returned by the remote side, or returned by a
// server handler to produce one.
type Fault struct {
	Code    int
	Message string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("xmlrpc fault %d: %s", f.Code, f.Message)
}

// iso8601 layouts accepted for dateTime.iso8601, most common first.
var iso8601Layouts = []string{
	"20060102T15:04:05",
	"20060102T15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05Z07:00",
	"20060102T150405",
	"20060102T150405Z07:00",
}

func parseISO8601(s string) (time.Time, error) {
	for _, l := range iso8601Layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("xmlrpc: bad dateTime.iso8601 %q", truncate(s))
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
