package mcap

import (
	"bytes"
	"cmp"
	"slices"
	"testing"
)

// fuzzScript turns fuzz input into writer options and a script: the
// first bytes pick the compression and a small chunk size, then every
// 4 bytes are a message (channel, a 16-bit log time that repeats and
// goes backwards, a data length).
func fuzzScript(in []byte) (WriterOptions, script) {
	o := WriterOptions{Profile: "ros1", ChunkSize: 64}
	s := testScript(0)
	if len(in) < 2 {
		return o, s
	}
	o.Compression = []string{CompressionZstd, CompressionLZ4, CompressionNone}[int(in[0])%3]
	o.ChunkSize += int64(in[1]) * 16
	in = in[2:]
	for i := 0; i+4 <= len(in); i += 4 {
		t := uint64(in[i+1]) | uint64(in[i+2])<<8
		data := bytes.Repeat([]byte{in[i]}, int(in[i+3]))
		s.messages = append(s.messages, Message{Channel: &Channel{ID: uint16(1 + int(in[i])%len(s.channels))},
			Sequence: uint32(i / 4), LogTime: t, PublishTime: t, Data: data})
	}
	return o, s
}

// FuzzWriter: whatever is written, edged's reader gives back every
// message (in log-time order; ties in any order), the CRCs match, and
// the message indexes point at the messages.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{0, 0, 1, 10, 0, 5, 2, 9, 0, 5, 1, 10, 0, 5})
	f.Add(append([]byte{1, 3}, bytes.Repeat([]byte{3, 200, 1, 40, 2, 100, 1, 40}, 20)...))
	f.Add(append([]byte{2, 255}, bytes.Repeat([]byte{0, 7, 0, 255}, 50)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		o, s := fuzzScript(in)
		file := s.write(t, o)
		r, err := NewReader(bytes.NewReader(file), int64(len(file)), "fuzz.mcap", Options{VerifyDataCRC: true})
		if err != nil {
			t.Fatal(err)
		}
		if info := r.Info(); len(info.Problems) > 0 || !info.DataCRCChecked || info.Messages != uint64(len(s.messages)) {
			t.Fatalf("info %+v", info)
		}
		var got []Message
		it := r.Messages()
		for it.Next() {
			m := it.Message()
			if n := len(got); n > 0 && m.LogTime < got[n-1].LogTime {
				t.Fatalf("message at %d after %d", m.LogTime, got[n-1].LogTime)
			}
			m.Data = bytes.Clone(m.Data)
			got = append(got, m)
		}
		it.Close()
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		bySequence := func(a, b Message) int { return cmp.Compare(a.Sequence, b.Sequence) }
		slices.SortFunc(got, bySequence)
		if len(got) != len(s.messages) {
			t.Fatalf("%d messages back, %d written", len(got), len(s.messages))
		}
		for i, m := range got {
			w := s.messages[i]
			if m.Sequence != w.Sequence || m.Channel.ID != w.Channel.ID || m.LogTime != w.LogTime || !bytes.Equal(m.Data, w.Data) {
				t.Fatalf("message %d came back as %+v", i, m)
			}
		}
		checkMessageIndexes(t, file, len(s.messages))
	})
}
