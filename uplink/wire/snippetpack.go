package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Snippet body formats (PackedSnippet.Format). Format 1, a Snippet map
// with float64 arrays per sample, is what robots before format 2 sent;
// DecodeSnippet reads both, EncodeSnippet writes SnippetFormat.
const (
	snippetFormat1 = 1
	SnippetFormat  = 2
)

// noSource stands in PackedSnippet.Sources for a sample without a joint
// message (JointSample.Source 0).
const noSource = math.MinInt64

// pack turns s into format 2. Values become float32 (24-bit mantissa:
// 0.2 µrad at π, far below any joint encoder) in series, one per field
// and joint in time order, each value XORed with the one before it and
// the bytes of the whole block grouped by significance, so that zstd
// finds the slowly changing sign, exponent and high mantissa bytes
// together: about a third of format 1's bytes for a moving arm, far less
// for one at rest.
func pack(s *Snippet) (*PackedSnippet, error) {
	n, m := len(s.Names), len(s.Samples)
	p := &PackedSnippet{Format: SnippetFormat, Episode: s.Episode, Camera: s.Camera, SheetIndex: s.SheetIndex,
		EpisodeStart: s.EpisodeStart, Interval: s.Interval, FirstTick: s.FirstTick, LastTick: s.LastTick,
		Names: s.Names, Ticks: make([]int64, m), Stamps: make([]int64, m), Sources: make([]int64, m)}
	prev := s.EpisodeStart
	for i, j := range s.Samples {
		if len(j.Position) != n || len(j.Velocity) != n || len(j.Effort) != n {
			return nil, fmt.Errorf("wire: snippet sample %d has %d/%d/%d values for %d names", i, len(j.Position), len(j.Velocity), len(j.Effort), n)
		}
		p.Ticks[i], p.Stamps[i], p.Sources[i] = j.Tick, j.Stamp-prev, noSource
		if j.Source != 0 {
			p.Sources[i] = j.Source - j.Stamp
		}
		prev = j.Stamp
	}
	words := make([]uint32, 0, 3*n*m)
	for _, field := range snippetFields {
		for k := range n {
			var last uint32
			for _, j := range s.Samples {
				w := math.Float32bits(float32(field(&j)[k]))
				words = append(words, w^last)
				last = w
			}
		}
	}
	p.Values = shuffle(words)
	return p, nil
}

// unpack reverses pack, checking every length against the names and
// samples before allocating.
func unpack(p *PackedSnippet) (*Snippet, error) {
	n, m := len(p.Names), len(p.Ticks)
	if len(p.Stamps) != m || len(p.Sources) != m {
		return nil, fmt.Errorf("wire: snippet has %d ticks, %d stamps and %d sources", m, len(p.Stamps), len(p.Sources))
	}
	if len(p.Values) != 4*3*n*m {
		return nil, fmt.Errorf("wire: snippet has %d value bytes for %d samples of %d names (want %d)", len(p.Values), m, n, 4*3*n*m)
	}
	s := &Snippet{Episode: p.Episode, Camera: p.Camera, SheetIndex: p.SheetIndex, EpisodeStart: p.EpisodeStart,
		Interval: p.Interval, FirstTick: p.FirstTick, LastTick: p.LastTick, Names: p.Names, Samples: make([]JointSample, m)}
	prev := p.EpisodeStart
	for i := range s.Samples {
		j := &s.Samples[i]
		j.Tick, j.Stamp = p.Ticks[i], prev+p.Stamps[i]
		if p.Sources[i] != noSource {
			j.Source = j.Stamp + p.Sources[i]
		}
		prev = j.Stamp
		j.Position, j.Velocity, j.Effort = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	words := unshuffle(p.Values)
	for _, field := range snippetFields {
		for k := range n {
			var last uint32
			for i := range s.Samples {
				last ^= words[0]
				words = words[1:]
				field(&s.Samples[i])[k] = float64(math.Float32frombits(last))
			}
		}
	}
	return s, nil
}

// snippetFields are a sample's value arrays in the order pack writes them.
var snippetFields = []func(*JointSample) []float64{
	func(j *JointSample) []float64 { return j.Position },
	func(j *JointSample) []float64 { return j.Velocity },
	func(j *JointSample) []float64 { return j.Effort },
}

// shuffle writes words little-endian with their bytes grouped: every
// word's byte 0, then every byte 1, and so on.
func shuffle(words []uint32) []byte {
	n := len(words)
	out := make([]byte, 4*n)
	var b [4]byte
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[:], w)
		for k := range b {
			out[k*n+i] = b[k]
		}
	}
	return out
}

// unshuffle reverses shuffle; len(b) is a multiple of 4.
func unshuffle(b []byte) []uint32 {
	n := len(b) / 4
	words := make([]uint32, n)
	for i := range words {
		words[i] = uint32(b[i]) | uint32(b[n+i])<<8 | uint32(b[2*n+i])<<16 | uint32(b[3*n+i])<<24
	}
	return words
}
