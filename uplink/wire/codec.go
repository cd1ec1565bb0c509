package wire

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/tinylib/msgp/msgp"
)

// Caps every decoder applies (docs/wire.md lists them for consumers).
const (
	MaxIDLen     = 64       // Envelope.ID
	MaxNameLen   = 128      // Envelope.Robot, Envelope.Episode, camera names
	MaxBody      = 64 << 20 // bytes of a whole body after reassembly
	MaxChunks    = 4096     // chunks of one message
	MaxEnvelope  = MaxBody + 64<<10
	MaxSnippet   = 16 << 20 // decompressed snippet bytes
	overheadSlop = 512      // envelope bytes besides the body, generous
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is the CRC-32C of b, as in Envelope.CRC.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// NewID returns a fresh idempotency key: 128 random bits in hex.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// New returns an unchunked envelope for body.
func New(id, robot, episode, kind string, seq uint64, created int64, body []byte) *Envelope {
	return &Envelope{Version: Version, ID: id, Robot: robot, Episode: episode, Kind: kind, Seq: seq,
		Created: created, Chunks: 1, Size: uint32(len(body)), CRC: Checksum(body), Body: body}
}

// Decode parses one MQTT payload of at most max bytes (0: MaxEnvelope)
// and validates it. It never allocates more than the payload warrants:
// every length is checked against the bytes present before decoding.
func Decode(b []byte, max int) (*Envelope, error) {
	if max <= 0 || max > MaxEnvelope {
		max = MaxEnvelope
	}
	if len(b) > max {
		return nil, fmt.Errorf("wire: payload of %d bytes exceeds the cap of %d", len(b), max)
	}
	if err := checkShape(b); err != nil {
		return nil, err
	}
	var e Envelope
	if _, err := e.UnmarshalMsg(b); err != nil {
		return nil, fmt.Errorf("wire: envelope: %w", err)
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return &e, nil
}

// checkShape walks b without allocating: every length must fit in the
// bytes that follow it, and b must be exactly one msgpack value.
func checkShape(b []byte) error {
	rest, err := msgp.Skip(b)
	if err != nil {
		return fmt.Errorf("wire: not msgpack: %w", err)
	}
	if len(rest) != 0 {
		return fmt.Errorf("wire: %d trailing bytes after the msgpack value", len(rest))
	}
	return nil
}

// Validate checks versions, names, kinds and chunk fields; for an
// unchunked envelope also the body's size and checksum.
func (e *Envelope) Validate() error {
	switch {
	case e.Version != Version:
		return fmt.Errorf("wire: unsupported version %d (want %d)", e.Version, Version)
	case len(e.ID) == 0 || len(e.ID) > MaxIDLen || !SafeName(e.ID):
		return fmt.Errorf("wire: bad id %.80q", e.ID)
	case !SafeName(e.Robot):
		return fmt.Errorf("wire: bad robot %.140q", e.Robot)
	case e.Episode != "" && !SafeName(e.Episode):
		return fmt.Errorf("wire: bad episode %.140q", e.Episode)
	case slices.Contains(ReservedEpisodeNames, e.Episode):
		return fmt.Errorf("wire: episode %q is reserved (a receiver keeps a file of that name beside the episodes)", e.Episode)
	case !slices.Contains(Kinds, e.Kind):
		return fmt.Errorf("wire: unknown kind %.40q", e.Kind)
	case e.Kind != KindStatus && e.Episode == "":
		return fmt.Errorf("wire: kind %s needs an episode", e.Kind)
	case e.Chunks == 0 || e.Chunks > MaxChunks:
		return fmt.Errorf("wire: chunks %d out of range 1..%d", e.Chunks, MaxChunks)
	case e.Chunk >= e.Chunks:
		return fmt.Errorf("wire: chunk %d of %d", e.Chunk, e.Chunks)
	case e.Size > MaxBody:
		return fmt.Errorf("wire: body size %d exceeds the cap of %d", e.Size, MaxBody)
	case uint32(len(e.Body)) > e.Size:
		return fmt.Errorf("wire: chunk of %d bytes in a body of %d", len(e.Body), e.Size)
	}
	if e.Chunks == 1 {
		if uint32(len(e.Body)) != e.Size {
			return fmt.Errorf("wire: body has %d bytes, size says %d", len(e.Body), e.Size)
		}
		if Checksum(e.Body) != e.CRC {
			return errors.New("wire: body checksum mismatch")
		}
	}
	return nil
}

// ReservedEpisodeNames are names an episode id must never take. The
// receiver now keeps episodes apart from its own files (OUT/episodes/ID,
// OUT/robots/ROBOT/status.json) and takes only ids of the sending robot
// (episode.CheckID), which none of these is; the list stays as a second
// line. Names starting with '.' are refused by SafeName already.
var ReservedEpisodeNames = []string{"status.json"}

// SafeName reports whether s can name a robot, an episode, an id or a
// file: 1..MaxNameLen of [A-Za-z0-9._:-], not starting with '.'.
func SafeName(s string) bool {
	if s == "" || len(s) > MaxNameLen || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '-' || c == '_' || c == '.' || c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// Split returns e as MQTT payloads of at most maxPayload bytes each: e
// itself when it fits, else chunks of its body. e must be unchunked.
func Split(e *Envelope, maxPayload int) ([][]byte, error) {
	whole, err := e.MarshalMsg(nil)
	if err != nil {
		return nil, err
	}
	if len(whole) <= maxPayload {
		return [][]byte{whole}, nil
	}
	per := maxPayload - (len(whole) - len(e.Body)) - overheadSlop
	if per < 256 {
		return nil, fmt.Errorf("wire: max payload %d leaves no room for a chunk", maxPayload)
	}
	n := (len(e.Body) + per - 1) / per
	if n > MaxChunks {
		return nil, fmt.Errorf("wire: body of %d bytes needs %d chunks (cap %d): raise max_payload", len(e.Body), n, MaxChunks)
	}
	out := make([][]byte, 0, n)
	c := *e
	c.Chunks = uint32(n)
	for i := range n {
		c.Chunk = uint32(i)
		c.Body = e.Body[i*per : min((i+1)*per, len(e.Body))]
		b, err := c.MarshalMsg(make([]byte, 0, len(c.Body)+overheadSlop))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// MaxAck caps an acknowledgement payload.
const MaxAck = 4096

// DecodeAck parses an acknowledgement payload and checks its names.
func DecodeAck(b []byte) (*Ack, error) {
	if len(b) > MaxAck {
		return nil, fmt.Errorf("wire: ack of %d bytes exceeds the cap of %d", len(b), MaxAck)
	}
	if err := checkShape(b); err != nil {
		return nil, err
	}
	var a Ack
	if _, err := a.UnmarshalMsg(b); err != nil {
		return nil, fmt.Errorf("wire: ack: %w", err)
	}
	if !SafeName(a.Robot) || !SafeName(a.Episode) {
		return nil, fmt.Errorf("wire: ack: bad robot %.140q or episode %.140q", a.Robot, a.Episode)
	}
	return &a, nil
}
