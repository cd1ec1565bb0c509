package mcap

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// benchInput is the G1 episode's messages (camera JPEGs, joint states,
// task states) as a clip writes them: what a Writer is fed.
func benchInput(b *testing.B) (script, int64) {
	r, err := Open(realPath(b, "ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var s script
	ids := map[uint16]uint16{} // the file's channel ids to the script's
	for _, c := range r.Channels() {
		sid := uint16(0)
		if c.Schema != nil {
			s.schemas = append(s.schemas, *c.Schema)
			sid = uint16(len(s.schemas))
		}
		s.channels = append(s.channels, Channel{SchemaID: sid, Topic: c.Topic, MessageEncoding: c.MessageEncoding})
		ids[c.ID] = uint16(len(s.channels))
	}
	it := r.Messages()
	defer it.Close()
	var total int64
	for it.Next() {
		m := it.Message()
		m.Data = bytes.Clone(m.Data)
		m.Channel = &Channel{ID: ids[m.Channel.ID]}
		s.messages = append(s.messages, m)
		total += int64(len(m.Data))
	}
	if it.Err() != nil {
		b.Fatal(it.Err())
	}
	return s, total
}

// BenchmarkWriter writes the G1 episode with each compression, against
// a reference in the same run: plain zstd of the same bytes in chunks
// of the same size (EncodeAll, as the writer compresses). x_plain_zstd
// is the writer's time over the reference's (1.0: the format costs
// nothing beyond compression).
func BenchmarkWriter(b *testing.B) {
	s, total := benchInput(b)
	var plainNs float64
	b.Run("plain-zstd", func(b *testing.B) {
		var data []byte
		for _, m := range s.messages {
			data = append(data, m.Data...)
		}
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		defer enc.Close()
		var dst []byte
		b.SetBytes(total)
		b.ReportAllocs()
		for b.Loop() {
			for p := data; len(p) > 0; p = p[min(len(p), DefaultChunkSize):] {
				dst = enc.EncodeAll(p[:min(len(p), DefaultChunkSize)], dst[:0])
			}
		}
		plainNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for _, c := range []string{CompressionZstd, CompressionLZ4, CompressionNone} {
		b.Run("mcap-"+c, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				s.writeTo(b, io.Discard, WriterOptions{Profile: "ros2", Compression: c})
			}
			if c == CompressionZstd && plainNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/plainNs, "x_plain_zstd")
			}
		})
	}
}
