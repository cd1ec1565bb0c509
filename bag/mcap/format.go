package mcap

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Magic opens and closes every MCAP file: 0x89 "MCAP" '0' "\r\n".
var Magic = []byte{0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'}

// Record opcodes, as the MCAP specification numbers them.
const (
	opHeader          = 0x01
	opFooter          = 0x02
	opSchema          = 0x03
	opChannel         = 0x04
	opMessage         = 0x05
	opChunk           = 0x06
	opMessageIndex    = 0x07
	opChunkIndex      = 0x08
	opAttachment      = 0x09
	opAttachmentIndex = 0x0a
	opStatistics      = 0x0b
	opMetadata        = 0x0c
	opMetadataIndex   = 0x0d
	opSummaryOffset   = 0x0e
	opDataEnd         = 0x0f
)

// recordPrefix is a record's opcode (1) and content length (8).
const recordPrefix = 9

// footerSize is the footer record (prefix + 8 + 8 + 4) plus the magic.
const footerSize = recordPrefix + 20 + 8

// ErrCorrupt is wrapped by every error about a damaged file; the
// *CorruptError names the byte offset of the record at fault.
var ErrCorrupt = errors.New("corrupt MCAP file")

// CorruptError is a damaged record at Offset.
type CorruptError struct {
	Offset int64
	What   string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt MCAP file: %s at byte offset %d", e.What, e.Offset)
}

// Unwrap makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

func corrupt(off int64, format string, args ...any) error {
	return &CorruptError{Offset: off, What: fmt.Sprintf(format, args...)}
}

// cursor reads the fields of one record's content. Every length is
// checked against what remains of the content before it is used; the
// first failure is sticky.
type cursor struct {
	b   []byte
	err bool
}

func (c *cursor) take(n uint64) []byte {
	if c.err || n > uint64(len(c.b)) {
		c.err = true
		return nil
	}
	p := c.b[:n:n]
	c.b = c.b[n:]
	return p
}

func (c *cursor) u8() uint8 {
	if p := c.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (c *cursor) u16() uint16 {
	if p := c.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if p := c.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if p := c.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// str reads a uint32-length-prefixed string.
func (c *cursor) str() string { return string(c.take(uint64(c.u32()))) }

// bytes32 reads uint32-length-prefixed bytes (aliasing the record).
func (c *cursor) bytes32() []byte { return c.take(uint64(c.u32())) }

// strMap reads a map<string,string>: a uint32 byte length, then pairs.
func (c *cursor) strMap() map[string]string {
	body := cursor{b: c.take(uint64(c.u32()))}
	if c.err {
		return nil
	}
	m := map[string]string{}
	for len(body.b) > 0 && !body.err {
		k := body.str()
		m[k] = body.str()
	}
	c.err = body.err
	return m
}
