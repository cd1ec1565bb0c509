package mcap

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// script is what a test writes: schemas, channels (schema 0: none),
// messages and metadata records.
type script struct {
	schemas  []Schema  // ID ignored: ids come from AddSchema, in order
	channels []Channel // SchemaID by position in schemas, 1-based; ID ignored
	messages []Message // Channel.ID only
	metadata []Metadata
}

// testScript is three channels (two share a schema, one has none) with n
// messages of varied sizes whose log times are distinct and out of order
// within and across chunks.
func testScript(n int) script {
	s := script{
		schemas: []Schema{
			{Name: "sensor_msgs/msg/JointState", Encoding: "ros2msg", Data: []byte("std_msgs/Header header\nstring[] name\nfloat64[] position\n")},
			{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")},
		},
		channels: []Channel{
			{SchemaID: 1, Topic: "/joint_states", MessageEncoding: "cdr", Metadata: map[string]string{"episode": "ep-7", "trigger": "fsm"}},
			{SchemaID: 2, Topic: "/task_state", MessageEncoding: "cdr"},
			{SchemaID: 1, Topic: "/joint_command", MessageEncoding: "cdr", Metadata: map[string]string{}},
			{SchemaID: 0, Topic: "/raw", MessageEncoding: "cdr"},
		},
		metadata: []Metadata{{Name: "clip", Metadata: map[string]string{"episode": "ep-7", "trigger": "fsm:FAILED", "pre": "20s"}}},
	}
	for i := range n {
		// a stride coprime with n scatters the times over the file
		t := 1_000_000_000 + uint64((i*7919)%n)*1000
		data := bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 1+(i*37)%300)
		s.messages = append(s.messages, Message{Channel: &Channel{ID: uint16(1 + i%4)}, Sequence: uint32(i),
			LogTime: t, PublishTime: t - 7, Data: data})
	}
	return s
}

// write runs s through a Writer and returns the file.
func (s script) write(t testing.TB, o WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	s.writeTo(t, &buf, o)
	return buf.Bytes()
}

func (s script) writeTo(t testing.TB, out io.Writer, o WriterOptions) {
	t.Helper()
	w, err := NewWriter(out, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range s.schemas {
		id, err := w.AddSchema(sc.Name, sc.Encoding, sc.Data)
		if err != nil || id != uint16(i+1) {
			t.Fatalf("AddSchema %s: id %d, %v", sc.Name, id, err)
		}
	}
	for i, c := range s.channels {
		id, err := w.AddChannel(c.SchemaID, c.Topic, c.MessageEncoding, c.Metadata)
		if err != nil || id != uint16(i+1) {
			t.Fatalf("AddChannel %s: id %d, %v", c.Topic, id, err)
		}
	}
	for i, m := range s.messages {
		if i == len(s.messages)/2 {
			for _, md := range s.metadata {
				if err := w.WriteMetadata(md.Name, md.Metadata); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.WriteMessage(m.Channel.ID, m.Sequence, m.LogTime, m.PublishTime, m.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// inLogTimeOrder is s's messages as a reader yields them (the test
// scripts' log times are distinct).
func (s script) inLogTimeOrder() []Message {
	out := slices.Clone(s.messages)
	slices.SortStableFunc(out, func(a, b Message) int { return cmp.Compare(a.LogTime, b.LogTime) })
	return out
}

func TestWriterRoundTrip(t *testing.T) {
	s := testScript(3000)
	for _, tc := range []struct {
		compression string
		chunkSize   int64
		minChunks   int
	}{
		{CompressionZstd, 0, 1},
		{CompressionZstd, 16 << 10, 20},
		{CompressionLZ4, 16 << 10, 20},
		{CompressionNone, 16 << 10, 20},
		{CompressionZstd, 1, 3000}, // a chunk per message
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.compression, tc.chunkSize), func(t *testing.T) {
			file := s.write(t, WriterOptions{Profile: "ros2", Library: "edged test", Compression: tc.compression, ChunkSize: tc.chunkSize})
			r, err := NewReader(bytes.NewReader(file), int64(len(file)), "written.mcap", Options{VerifyDataCRC: true})
			if err != nil {
				t.Fatal(err)
			}
			info := r.Info()
			want := tc.compression
			if want == CompressionNone {
				want = ""
			}
			if !info.Indexed || !info.SummaryCRCChecked || !info.DataCRCChecked || len(info.Problems) > 0 ||
				info.Profile != "ros2" || info.Library != "edged test" || info.Chunks < tc.minChunks ||
				info.Compression[want] != info.Chunks || info.Messages != uint64(len(s.messages)) || info.MetadataRecords != 1 {
				t.Fatalf("info %+v", info)
			}
			checkChannels(t, s, r)
			checkMessages(t, s.inLogTimeOrder(), r)
			if got := r.Metadata(); len(got) != 1 || got[0].Name != "clip" || !maps.Equal(got[0].Metadata, s.metadata[0].Metadata) {
				t.Errorf("metadata %+v", got)
			}
			checkMessageIndexes(t, file, len(s.messages))
		})
	}
}

func checkChannels(t *testing.T, s script, r *Reader) {
	t.Helper()
	chans := r.Channels()
	if len(chans) != len(s.channels) {
		t.Fatalf("%d channels, want %d", len(chans), len(s.channels))
	}
	for i, c := range chans {
		w := s.channels[i]
		if c.ID != uint16(i+1) || c.Topic != w.Topic || c.MessageEncoding != w.MessageEncoding || c.SchemaID != w.SchemaID ||
			len(c.Metadata) != len(w.Metadata) || !maps.Equal(c.Metadata, w.Metadata) {
			t.Errorf("channel %d: %+v, want %+v", i+1, c, w)
		}
		if w.SchemaID == 0 {
			if c.Schema != nil {
				t.Errorf("channel %s: schema %+v, want none", c.Topic, c.Schema)
			}
			continue
		}
		ws := s.schemas[w.SchemaID-1]
		if c.Schema == nil || c.Schema.Name != ws.Name || c.Schema.Encoding != ws.Encoding || !bytes.Equal(c.Schema.Data, ws.Data) {
			t.Errorf("channel %s: schema %+v, want %+v", c.Topic, c.Schema, ws)
		}
	}
}

func checkMessages(t *testing.T, want []Message, r *Reader) {
	t.Helper()
	it := r.Messages()
	defer it.Close()
	n := 0
	for it.Next() {
		m := it.Message()
		if n >= len(want) {
			t.Fatalf("more than the %d messages written", len(want))
		}
		w := want[n]
		if m.Channel.ID != w.Channel.ID || m.Sequence != w.Sequence || m.LogTime != w.LogTime ||
			m.PublishTime != w.PublishTime || !bytes.Equal(m.Data, w.Data) {
			t.Fatalf("message %d: channel %d seq %d at %d/%d (%d bytes), want channel %d seq %d at %d/%d (%d bytes)", n,
				m.Channel.ID, m.Sequence, m.LogTime, m.PublishTime, len(m.Data), w.Channel.ID, w.Sequence, w.LogTime, w.PublishTime, len(w.Data))
		}
		n++
	}
	if err := it.Err(); err != nil || n != len(want) {
		t.Fatalf("%d messages read (%v), want %d", n, err, len(want))
	}
}

func TestWriterDeterministic(t *testing.T) {
	s := testScript(500)
	for _, c := range []string{CompressionZstd, CompressionLZ4, CompressionNone} {
		o := WriterOptions{Profile: "ros1", Compression: c, ChunkSize: 8 << 10}
		if a, b := s.write(t, o), s.write(t, o); !bytes.Equal(a, b) {
			t.Errorf("%s: two writes of the same input differ", c)
		}
	}
}

func TestWriterEmpty(t *testing.T) {
	file := script{}.write(t, WriterOptions{})
	r, err := NewReader(bytes.NewReader(file), int64(len(file)), "empty.mcap", Options{VerifyDataCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	if info := r.Info(); info.Messages != 0 || len(info.Problems) > 0 || info.Library != DefaultLibrary || !info.DataCRCChecked {
		t.Errorf("info %+v", info)
	}
}

// TestWriterHoldsOneChunk: the chunk is written once it reaches the
// chunk size, so the writer's buffer stays below it and the file grows
// while messages are written.
func TestWriterHoldsOneChunk(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{ChunkSize: 4096, Compression: CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	ch := addTestChannel(t, w)
	msg := make([]byte, 1000)
	for i := range 100 {
		if err := w.WriteMessage(ch, uint32(i), uint64(i), uint64(i), msg); err != nil {
			t.Fatal(err)
		}
		if len(w.chunk.buf) >= 4096 {
			t.Fatalf("after message %d the writer holds %d bytes, more than a chunk", i, len(w.chunk.buf))
		}
	}
	if w.Size() < 90_000 {
		t.Errorf("%d bytes written before Close: chunks are held back", w.Size())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func addTestChannel(t *testing.T, w *Writer) uint16 {
	t.Helper()
	sid, err := w.AddSchema("std_msgs/String", "ros1msg", []byte("string data"))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := w.AddChannel(sid, "/chatter", "ros1", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestWriterOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		o    WriterOptions
		want string
	}{
		{WriterOptions{Compression: "brotli"}, `Compression "brotli"`},
		{WriterOptions{ChunkSize: -1}, "ChunkSize -1"},
		{WriterOptions{ChunkSize: MaxChunkSize + 1}, "ChunkSize"},
		{WriterOptions{MaxMessageBytes: DefaultMaxMessageBytes + 1}, "MaxMessageBytes"},
	} {
		if _, err := NewWriter(&bytes.Buffer{}, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.o, err, tc.want)
		}
	}
}

// TestWriterRefuses: bad calls give errors that say why, and the file
// written around them stays valid with every accepted message.
func TestWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{MaxMessageBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	ch := addTestChannel(t, w)
	for _, tc := range []struct {
		name string
		call func() error
		want string
		is   error
	}{
		{"unknown channel", func() error { return w.WriteMessage(9, 0, 1, 1, nil) }, "channel 9: channel not added", nil},
		{"channel 0", func() error { return w.WriteMessage(0, 0, 1, 1, nil) }, "channel 0", nil},
		{"message too large", func() error { return w.WriteMessage(ch, 0, 1, 1, make([]byte, 101)) }, "/chatter of 101 bytes", ErrTooLarge},
		{"unknown schema", func() error { _, err := w.AddChannel(5, "/x", "ros1", nil); return err }, "schema 5 not added", nil},
		{"no topic", func() error { _, err := w.AddChannel(0, "", "ros1", nil); return err }, "must be set", nil},
		{"no schema encoding", func() error { _, err := w.AddSchema("a/B", "", nil); return err }, "must be set", nil},
		{"schema too large", func() error { _, err := w.AddSchema("a/B", "ros1msg", make([]byte, DefaultMaxRecordBytes)); return err }, "schema a/B", ErrTooLarge},
		{"summary full", func() error {
			big := make([]byte, maxDefinitionBytes/3)
			for i := range 3 {
				if _, err := w.AddSchema(fmt.Sprint("big/", i), "ros1msg", big); err != nil {
					return err
				}
			}
			return nil
		}, "schema big/2 of 11184836 bytes: the schemas and channels already added leave", ErrTooLarge},
	} {
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := w.WriteMessage(ch, 1, 5, 5, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.WriteMessage(ch, 2, 6, 6, nil); !errors.Is(err, ErrWriterClosed) {
		t.Errorf("write after Close: %v", err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "refused.mcap", Options{})
	if err != nil || r.Info().Messages != 1 || len(r.Info().Problems) > 0 {
		t.Fatalf("after refusals: %v %+v", err, r.Info())
	}
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriterWriteFails: a failing io.Writer gives an error that sticks,
// from the call that met it, every later call and Close (twice).
func TestWriterWriteFails(t *testing.T) {
	for _, limit := range []int{0, 100, 70_000, 200_000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			w, err := NewWriter(&failingWriter{n: limit}, WriterOptions{ChunkSize: 8 << 10, Compression: CompressionNone})
			if err != nil {
				if !errors.Is(err, errDiskFull) {
					t.Fatal(err)
				}
				return
			}
			ch := addTestChannel(t, w)
			var first error
			for i := 0; i < 1000 && first == nil; i++ {
				first = w.WriteMessage(ch, uint32(i), uint64(i), uint64(i), make([]byte, 500))
			}
			if first == nil {
				first = w.Close()
			}
			if !errors.Is(first, errDiskFull) {
				t.Fatalf("error %v, want disk full", first)
			}
			if err := w.WriteMessage(ch, 0, 0, 0, nil); !errors.Is(err, errDiskFull) {
				t.Errorf("write after failure: %v", err)
			}
			for range 2 {
				if err := w.Close(); !errors.Is(err, errDiskFull) {
					t.Errorf("Close after failure: %v", err)
				}
			}
		})
	}
}

// TestWriterCutShort: a file cut where a writer died (no summary, a
// chunk half written) still gives every message of its complete
// chunks: each carries the schemas and channels its messages first
// need, so the Reader's scan finds them without the summary.
func TestWriterCutShort(t *testing.T) {
	s := testScript(600)
	file := s.write(t, WriterOptions{ChunkSize: 8 << 10})
	full, err := NewReader(bytes.NewReader(file), int64(len(file)), "full.mcap", Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := slices.Clone(full.blocks)
	slices.SortFunc(chunks, func(a, b block) int { return cmp.Compare(a.offset, b.offset) })
	var ld loader
	defer ld.close()
	before := 0 // messages in the chunks before chunks[i]
	for i, c := range chunks[:len(chunks)-1] {
		end := c.offset + recordPrefix + int64(c.length)
		for _, cut := range []int64{end - 1, end, chunks[i+1].offset} { // mid-chunk, after it, after its message indexes
			r, err := NewReader(bytes.NewReader(file[:cut]), cut, "cut.mcap", Options{})
			if err != nil {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			want := before
			if cut >= end {
				want += countChunk(t, &ld, full, c)
			}
			if got := countMessages(t, r); got != want || len(r.Info().Problems) == 0 || (want > 0 && len(r.Channels()) == 0) {
				t.Fatalf("cut at %d: %d messages, %d channels, problems %v; want %d", cut, got, len(r.Channels()), r.Info().Problems, want)
			}
		}
		before += countChunk(t, &ld, full, c)
	}
}

func countChunk(t *testing.T, ld *loader, r *Reader, b block) int {
	t.Helper()
	c, err := ld.load(r, b)
	if err != nil {
		t.Fatal(err)
	}
	return len(c.entries)
}

func countMessages(t *testing.T, r *Reader) int {
	t.Helper()
	it := r.Messages()
	defer it.Close()
	n := 0
	for it.Next() {
		if it.Message().Channel == nil {
			t.Fatal("a message without its channel")
		}
		n++
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	return n
}
