package mcap

import (
	"bytes"
	"testing"
)

// FuzzReader: any file opens or fails with an error, and iterating it
// never panics or reads past its caps.
func FuzzReader(f *testing.F) {
	f.Add(sample(true))
	f.Add(sample(false))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), "fuzz.mcap",
			Options{MaxRecordBytes: 1 << 20, MaxChunkBytes: 1 << 20, MaxCacheBytes: 4 << 20})
		if err != nil {
			return
		}
		it := r.Messages()
		defer it.Close()
		for it.Next() {
			_ = it.Message().Channel.Topic
		}
		_ = it.Err()
	})
}

func BenchmarkReadG1(b *testing.B) {
	path := realPath(b, "ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap")
	r, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.SetBytes(r.Info().Size)
	b.ReportAllocs()
	for b.Loop() {
		it := r.Messages()
		n := 0
		for it.Next() {
			n += len(it.Message().Data)
		}
		if it.Err() != nil || n == 0 {
			b.Fatal(it.Err())
		}
		it.Close()
	}
}
