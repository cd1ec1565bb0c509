package rosout

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxMessage caps a record's text on /rosout (the wrapped handler still
// gets all of it).
const MaxMessage = 16 << 10

// Publisher is where records go: a *ros.Publication.
type Publisher interface{ Publish(data []byte) }

// Handler wraps a slog.Handler and also publishes on /rosout. See the
// package doc.
type Handler struct {
	inner  slog.Handler
	level  slog.Leveler
	shared *shared
	prefix string // attrs and groups added by WithAttrs/WithGroup, text form
	group  string
}

type shared struct {
	pub  atomic.Pointer[attachment]
	seq  atomic.Uint32
	busy sync.Mutex // serializes publishing, so seq follows the order on the wire
}

type attachment struct {
	pub    Publisher
	node   string
	topics []string
	now    func() time.Time
}

// New returns a Handler that passes records to inner and publishes
// those at or above level once attached.
func New(inner slog.Handler, level slog.Leveler) *Handler {
	return &Handler{inner: inner, level: level, shared: &shared{}}
}

// Attach starts publishing to pub as node (its global name); topics
// are the node's publications, reported in every record as roscpp does.
// now stamps the records (nil: wall time).
func (h *Handler) Attach(pub Publisher, node string, topics []string, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	h.shared.pub.Store(&attachment{pub: pub, node: node, topics: topics, now: now})
}

// Detach stops publishing (before the publication closes).
func (h *Handler) Detach() { h.shared.pub.Store(nil) }

// Enabled reports whether inner or /rosout wants records at level.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l) || (h.shared.pub.Load() != nil && l >= h.level.Level())
}

// Handle passes r on and publishes it.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.inner.Enabled(ctx, r.Level) {
		err = h.inner.Handle(ctx, r)
	}
	if a := h.shared.pub.Load(); a != nil && r.Level >= h.level.Level() {
		h.publish(a, r)
	}
	return err
}

func (h *Handler) publish(a *attachment, r slog.Record) {
	m := Log{Stamp: a.now(), Level: level(r.Level), Name: a.node, Msg: h.text(r), Topics: a.topics}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		m.File, m.Function, m.Line = f.File, f.Function, uint32(f.Line)
	}
	h.shared.busy.Lock()
	defer h.shared.busy.Unlock()
	m.Seq = h.shared.seq.Add(1)
	a.pub.Publish(m.Marshal())
}

// text is the record's message and attributes as key=value pairs.
func (h *Handler) text(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.prefix)
	r.Attrs(func(at slog.Attr) bool {
		writeAttr(&b, h.group, at)
		return b.Len() < MaxMessage
	})
	s := b.String()
	if len(s) > MaxMessage {
		s = s[:MaxMessage] + "..."
	}
	return s
}

func writeAttr(b *strings.Builder, group string, at slog.Attr) {
	at.Value = at.Value.Resolve()
	if at.Equal(slog.Attr{}) {
		return
	}
	key := at.Key
	if group != "" {
		key = group + "." + key
	}
	if at.Value.Kind() == slog.KindGroup {
		for _, g := range at.Value.Group() {
			writeAttr(b, key, g)
		}
		return
	}
	v := at.Value.String()
	if strings.ContainsAny(v, " \t\n\"=") {
		v = fmt.Sprintf("%q", v)
	}
	fmt.Fprintf(b, " %s=%s", key, v)
}

// level maps slog levels to rosgraph_msgs/Log's.
func level(l slog.Level) byte {
	switch {
	case l >= slog.LevelError+4:
		return LevelFatal
	case l >= slog.LevelError:
		return LevelError
	case l >= slog.LevelWarn:
		return LevelWarn
	case l >= slog.LevelInfo:
		return LevelInfo
	default:
		return LevelDebug
	}
}

// WithAttrs returns a handler that adds attrs to every record.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, at := range attrs {
		writeAttr(&b, h.group, at)
	}
	return &Handler{inner: h.inner.WithAttrs(attrs), level: h.level, shared: h.shared, prefix: b.String(), group: h.group}
}

// WithGroup returns a handler that puts later attrs in group name.
func (h *Handler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &Handler{inner: h.inner.WithGroup(name), level: h.level, shared: h.shared, prefix: h.prefix, group: g}
}
