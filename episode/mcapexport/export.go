package mcapexport

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// Format names this export: `edged export --format mcap`.
const Format = "mcap"

// Topics of what an export holds besides clip's /edged/segments and
// /edged/transitions (a camera directory name follows the prefixes).
const (
	TopicSheetsPrefix   = "/edged/sheets/"
	TopicLabelsPrefix   = "/edged/labels/"
	TopicSnippetsPrefix = "/edged/snippets/"
	TopicTimeline       = "/edged/timeline"
	// MetadataName names the export's Metadata record (a clip's is
	// clip.MetadataName).
	MetadataName = "edged.episode"
)

// Schema and message encodings, as a clip writes them.
const (
	encROS1     = "ros1"
	encROS1Msg  = "ros1msg"
	encJSON     = "json"
	encJSONSchm = "jsonschema"
)

// Timeline sources: the FSM's segments, or a stored annotation's.
const (
	SourceFSM        = "fsm"
	SourceAnnotation = "annotation"
)

// Span is one message of the timeline channel: a segment of the FSM or
// of an annotation, at its start.
type Span struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	StartSec float64   `json:"start_sec"`
	EndSec   float64   `json:"end_sec"`
	Label    string    `json:"label"`
	Source   string    `json:"source"` // SourceFSM or SourceAnnotation
	Name     string    `json:"name"`   // the FSM source's topic, or the annotation's name
	Index    int       `json:"index"`
}

// Result is what Write wrote: messages per topic, and the files left
// out (unreadable, undecodable or too large), each named.
type Result struct {
	Messages map[string]int
	Problems []string
}

// item is one message to write: its time, channel and how to encode it.
type item struct {
	t      time.Time
	ch     uint16
	encode func(dst []byte, seq uint32) ([]byte, error)
	what   string // for a problem
}

// exporter collects an episode's channels and messages.
type exporter struct {
	w        *mcap.Writer
	e        *episode.Episode
	files    blob.Blobs
	meta     map[string]string
	schemas  map[string]uint16
	channels map[string]uint16
	topics   map[uint16]string
	items    []item
	res      Result
}

// Write writes episode e (as episode.LoadBlobs read it from store) to
// out as one MCAP file: zstd chunks, message indexes and the summary.
func Write(out io.Writer, e *episode.Episode, store blob.Blobs) (Result, error) {
	bw := bufio.NewWriterSize(out, 1<<20)
	w, err := mcap.NewWriter(bw, mcap.WriterOptions{Compression: mcap.CompressionZstd})
	if err != nil {
		return Result{}, err
	}
	x := &exporter{w: w, e: e, files: blob.Sub(store, e.Manifest.ID), meta: map[string]string{"episode": e.Manifest.ID},
		schemas: map[string]uint16{}, channels: map[string]uint16{}, topics: map[uint16]string{},
		res: Result{Messages: map[string]int{}}}
	steps := []func() error{x.segments, func() error { return x.annotations(store) }, x.sheets, x.snippets, x.write}
	for _, step := range steps {
		if err := step(); err != nil {
			return x.res, fmt.Errorf("export %s as MCAP: %w", e.Manifest.ID, err)
		}
	}
	if err := w.WriteMetadata(MetadataName, x.record()); err != nil {
		return x.res, err
	}
	if err := w.Close(); err != nil {
		return x.res, err
	}
	return x.res, bw.Flush()
}

// record is the Metadata record: the episode and what was left out.
func (x *exporter) record() map[string]string {
	m := x.e.Manifest
	md := map[string]string{"episode": m.ID, "robot": m.Robot, "start": m.Start.UTC().Format(time.RFC3339Nano),
		"outcome": m.Outcome, "segments": strconv.Itoa(len(x.e.Segments)), "problems": strconv.Itoa(len(x.res.Problems))}
	if !m.End.IsZero() {
		md["end"] = m.End.UTC().Format(time.RFC3339Nano)
	}
	if m.Instruction != "" {
		md["instruction"] = m.Instruction
	}
	return md
}

func (x *exporter) problem(format string, a ...any) {
	x.res.Problems = append(x.res.Problems, fmt.Sprintf(format, a...))
}

// schema declares a schema once by name.
func (x *exporter) schema(name, encoding string, data []byte) (uint16, error) {
	if id, ok := x.schemas[name]; ok {
		return id, nil
	}
	id, err := x.w.AddSchema(name, encoding, data)
	x.schemas[name] = id
	return id, err
}

// channel declares topic once, its messages of schema, its metadata
// naming the episode (and the camera, when there is one).
func (x *exporter) channel(topic, schemaName, camera string) (uint16, error) {
	if id, ok := x.channels[topic]; ok {
		return id, nil
	}
	var sid uint16
	var err error
	enc := encROS1
	switch schemaName {
	case msg.TypeCompressedImage:
		sid, err = x.schema(schemaName, encROS1Msg, []byte(msg.DefCompressedImage))
	case msg.TypeJointState:
		sid, err = x.schema(schemaName, encROS1Msg, []byte(msg.DefJointState))
	default:
		enc = encJSON
		s := fmt.Sprintf(`{"title":%q,"type":"object","description":"edged's episode format (docs/clips.md)"}`, schemaName)
		sid, err = x.schema(schemaName, encJSONSchm, []byte(s))
	}
	if err != nil {
		return 0, err
	}
	md := copyMeta(x.meta)
	if camera != "" {
		md["camera"] = camera
	}
	id, err := x.w.AddChannel(sid, topic, enc, md)
	x.channels[topic], x.topics[id] = id, topic
	return id, err
}

func copyMeta(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// add queues v as a JSON message at t on topic.
func (x *exporter) addJSON(topic, schemaName string, t time.Time, v any) error {
	ch, err := x.channel(topic, schemaName, "")
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	x.items = append(x.items, item{t: t, ch: ch, encode: func(dst []byte, _ uint32) ([]byte, error) { return append(dst, b...), nil }})
	return nil
}

// write writes every queued message in time order (ties in the order
// queued), so chunks do not overlap and viewers seek; a message that
// cannot be read or is too large is left out and named.
func (x *exporter) write() error {
	slices.SortStableFunc(x.items, func(a, b item) int { return cmp.Compare(a.t.UnixNano(), b.t.UnixNano()) })
	seqs := map[uint16]uint32{}
	var buf []byte
	for _, it := range x.items {
		seq := seqs[it.ch]
		b, err := it.encode(buf[:0], seq)
		if err != nil {
			x.problem("%s: %v: left out", it.what, err)
			continue
		}
		buf = b
		err = x.w.WriteMessage(it.ch, seq, nanos(it.t), nanos(it.t), b)
		if errorsIsTooLarge(err) {
			x.problem("%s: %v: left out", it.what, err)
			continue
		}
		if err != nil {
			return err
		}
		seqs[it.ch]++
		x.res.Messages[x.topics[it.ch]]++
	}
	return nil
}

// nanos is t as an MCAP time (nanoseconds since the epoch; 0 before it).
func nanos(t time.Time) uint64 {
	if t.Before(time.Unix(0, 0)) {
		return 0
	}
	return uint64(t.UnixNano())
}
