package wire

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	decOnce sync.Once
	dec     *zstd.Decoder
)

func encoder() *zstd.Encoder {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	})
	return enc
}

func decoder() *zstd.Decoder {
	decOnce.Do(func() {
		dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxSnippet),
			zstd.WithDecoderMaxWindow(8<<20))
	})
	return dec
}

// EncodeSnippet returns zstd(msgpack(s)), the body of a snippet message.
func EncodeSnippet(s *Snippet) ([]byte, error) {
	raw, err := s.MarshalMsg(nil)
	if err != nil {
		return nil, fmt.Errorf("wire: snippet: %w", err)
	}
	return encoder().EncodeAll(raw, make([]byte, 0, len(raw)/3+64)), nil
}

// DecodeSnippet reverses EncodeSnippet, capping the decompressed size at
// MaxSnippet and checking that every sample has one value per name.
func DecodeSnippet(b []byte) (*Snippet, error) {
	raw, err := decoder().DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("wire: snippet: zstd: %w", err)
	}
	if len(raw) > MaxSnippet {
		return nil, fmt.Errorf("wire: snippet of %d bytes exceeds the cap of %d", len(raw), MaxSnippet)
	}
	if err := checkShape(raw); err != nil {
		return nil, err
	}
	var s Snippet
	if _, err := s.UnmarshalMsg(raw); err != nil {
		return nil, fmt.Errorf("wire: snippet: %w", err)
	}
	n := len(s.Names)
	for i, j := range s.Samples {
		if len(j.Position) != n || len(j.Velocity) != n || len(j.Effort) != n {
			return nil, fmt.Errorf("wire: snippet sample %d has %d/%d/%d values for %d names", i, len(j.Position), len(j.Velocity), len(j.Effort), n)
		}
	}
	return &s, nil
}
