package mcap

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/edged-robotics/edged/internal/mcaptest"
)

// coreMessage is a message as @mcap/core read it (mcaptest).
func coreMessage(m mcaptest.Message) (Message, error) {
	ch, seq, lt, pt, data, err := m.Fields()
	return Message{Channel: &Channel{ID: ch}, Sequence: seq, LogTime: lt, PublishTime: pt, Data: data}, err
}

// TestWriterWithMcapCore: Foxglove's own reader opens what the writer
// wrote, through the summary and indexes and front to back, and finds
// every message, channel, schema and metadata record, CRCs matching.
func TestWriterWithMcapCore(t *testing.T) {
	s := testScript(1500)
	for _, tc := range []struct {
		compression string
		chunkSize   int64
	}{
		{CompressionZstd, 16 << 10},
		{CompressionLZ4, 16 << 10},
		{CompressionNone, 16 << 10},
		{CompressionZstd, 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.compression, tc.chunkSize), func(t *testing.T) {
			file := s.write(t, WriterOptions{Profile: "ros2", Compression: tc.compression, ChunkSize: tc.chunkSize})
			v := mcaptest.Read(t, file)
			checkCoreIndexed(t, s, v, tc.compression)
			checkCoreMessages(t, "streamed", s.messages, v.Stream.Messages)
			checkCoreStream(t, s, v)
		})
	}
}

func checkCoreIndexed(t *testing.T, s script, v mcaptest.View, compression string) {
	t.Helper()
	ix := v.Indexed
	if compression == CompressionNone {
		compression = ""
	}
	if ix.Profile != "ros2" || ix.Library != DefaultLibrary || !ix.DataCrcMatches || len(ix.Compressions) == 0 ||
		slices.IndexFunc(ix.Compressions, func(c string) bool { return c != compression }) >= 0 {
		t.Errorf("indexed: header %q %q, data CRC matches %v, chunks %v", ix.Profile, ix.Library, ix.DataCrcMatches, ix.Compressions)
	}
	if st := ix.Statistics; st == nil || st.MessageCount != fmt.Sprint(len(s.messages)) || st.ChunkCount != len(ix.Compressions) || st.MetadataCount != len(s.metadata) {
		t.Errorf("statistics %+v", st)
	}
	if len(ix.Schemas) != len(s.schemas) || len(ix.Channels) != len(s.channels) {
		t.Fatalf("%d schemas, %d channels", len(ix.Schemas), len(ix.Channels))
	}
	for _, c := range ix.Channels {
		w := s.channels[c.ID-1]
		if c.Topic != w.Topic || c.SchemaID != w.SchemaID || c.MessageEncoding != w.MessageEncoding || !maps.Equal(c.Metadata, w.Metadata) {
			t.Errorf("channel %+v, want %+v", c, w)
		}
	}
	for _, sc := range ix.Schemas {
		w := s.schemas[sc.ID-1]
		if sc.Name != w.Name || sc.Encoding != w.Encoding || !bytes.Equal(sc.Data, w.Data) {
			t.Errorf("schema %+v, want %+v", sc, w)
		}
	}
	want := s.inLogTimeOrder()
	checkCoreMessages(t, "indexed", want, ix.Messages)
	slices.Reverse(want)
	checkCoreMessages(t, "indexed in reverse", want, ix.Reverse)
	for i, c := range s.channels {
		if n, want := ix.ByTopic[c.Topic], (len(s.messages)+3-i)/4; n != want {
			t.Errorf("topic %s: %d messages through its message indexes, want %d", c.Topic, n, want)
		}
	}
	if len(ix.Metadata) != 1 || ix.Metadata[0].Name != s.metadata[0].Name || !maps.Equal(ix.Metadata[0].Metadata, s.metadata[0].Metadata) {
		t.Errorf("metadata %+v", ix.Metadata)
	}
}

func checkCoreMessages(t *testing.T, how string, want []Message, got []mcaptest.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", how, len(got), len(want))
	}
	for i, g := range got {
		m, err := coreMessage(g)
		w := want[i]
		if err != nil || m.Channel.ID != w.Channel.ID || m.Sequence != w.Sequence || m.LogTime != w.LogTime ||
			m.PublishTime != w.PublishTime || !bytes.Equal(m.Data, w.Data) {
			t.Fatalf("%s: message %d is %v (%v), want channel %d seq %d at %d", how, i, g, err, w.Channel.ID, w.Sequence, w.LogTime)
		}
	}
}

// checkCoreStream: the stream reader met every record once (schemas and
// channels twice: in the chunks and in the summary) and the file's end.
func checkCoreStream(t *testing.T, s script, v mcaptest.View) {
	t.Helper()
	chunks := len(v.Indexed.Compressions)
	want := map[string]int{"Header": 1, "Schema": 2 * len(s.schemas), "Channel": 2 * len(s.channels),
		"Message": len(s.messages), "Metadata": 1, "DataEnd": 1, "Statistics": 1, "ChunkIndex": chunks,
		"MetadataIndex": 1, "SummaryOffset": 5, "Footer": 1}
	got := maps.Clone(v.Stream.Records)
	indexes := got["MessageIndex"]
	delete(got, "MessageIndex")
	if !v.Stream.Done || !maps.Equal(got, want) || indexes < chunks || indexes > chunks*len(s.channels) {
		t.Errorf("stream reader: done %v, records %v, want %v and %d to %d message indexes", v.Stream.Done, v.Stream.Records, want, chunks, chunks*len(s.channels))
	}
}
