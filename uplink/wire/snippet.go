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

// EncodeSnippet returns zstd(msgpack(PackedSnippet)), the body of a
// snippet message in format SnippetFormat (docs/wire.md): values as
// float32, times as deltas.
func EncodeSnippet(s *Snippet) ([]byte, error) {
	p, err := pack(s)
	if err != nil {
		return nil, err
	}
	raw, err := p.MarshalMsg(nil)
	if err != nil {
		return nil, fmt.Errorf("wire: snippet: %w", err)
	}
	return encoder().EncodeAll(raw, make([]byte, 0, len(raw)/2+64)), nil
}

// DecodeSnippet reverses EncodeSnippet, and reads format 1 snippets of
// older robots too, capping the decompressed size at MaxSnippet and
// checking that every sample has one value per name.
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
	var p PackedSnippet
	if _, err := p.UnmarshalMsg(raw); err != nil {
		return nil, fmt.Errorf("wire: snippet: %w", err)
	}
	switch p.Format {
	case 0, snippetFormat1: // a Snippet map: no format key
		return decodeFormat1(raw)
	case SnippetFormat:
		return unpack(&p)
	}
	return nil, fmt.Errorf("wire: snippet format %d is newer than this edged reads (up to %d): upgrade the receiver", p.Format, SnippetFormat)
}

// decodeFormat1 reads a snippet of format 1, a Snippet map.
func decodeFormat1(raw []byte) (*Snippet, error) {
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
