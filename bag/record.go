package bag

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
)

// Record opcodes of format 2.0 (the "op" header field).
const (
	opMsgData    = 0x02
	opBagHeader  = 0x03
	opIndexData  = 0x04
	opChunk      = 0x05
	opChunkInfo  = 0x06
	opConnection = 0x07
)

func opName(op byte) string {
	switch op {
	case opMsgData:
		return "message data"
	case opBagHeader:
		return "bag header"
	case opIndexData:
		return "index data"
	case opChunk:
		return "chunk"
	case opChunkInfo:
		return "chunk info"
	case opConnection:
		return "connection"
	}
	return fmt.Sprintf("unknown op 0x%02x", op)
}

// field bits: which header fields a record carried.
const (
	hasOp uint16 = 1 << iota
	hasIndexPos
	hasConnCount
	hasChunkCount
	hasCompression
	hasSize
	hasConn
	hasTopic
	hasTime
	hasVer
	hasCount
	hasChunkPos
	hasStartTime
	hasEndTime
)

// rosTime is a ROS time as stored in a bag: seconds then nanoseconds,
// both uint32 little-endian.
type rosTime struct{ sec, nsec uint32 }

func rosTimeFrom(b []byte) rosTime {
	return rosTime{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])}
}

// nanos orders times; it fits an int64 for every uint32 second count
// (a corrupt nsec above 1e9 still orders consistently).
func (t rosTime) nanos() int64 { return int64(t.sec)*1e9 + int64(t.nsec) }

func (t rosTime) time() time.Time { return time.Unix(int64(t.sec), int64(t.nsec)) }

// recordHeader holds the fields of one record header that format 2.0
// defines; fields is a bit set of those present. Byte slices alias the
// parsed buffer.
type recordHeader struct {
	fields      uint16
	op          byte
	indexPos    uint64
	connCount   uint32
	chunkCount  uint32
	compression []byte
	size        uint32
	conn        uint32
	topic       []byte
	time        rosTime
	ver         uint32
	count       uint32
	chunkPos    uint64
	startTime   rosTime
	endTime     rosTime
}

func (h *recordHeader) has(bits uint16) bool { return h.fields&bits == bits }

// fieldIter walks the name=value fields of a record header (or of a
// connection record's data, which has the same layout): each field is a
// uint32 length then that many bytes, the name ending at the first '='.
type fieldIter struct {
	b   []byte
	off int // offset of b[0] within the header, for errors
}

// next returns the next field; ok is false at the end. A length that
// runs past the header or a field without '=' is an error.
func (it *fieldIter) next() (name, value []byte, ok bool, err error) {
	if len(it.b) == 0 {
		return nil, nil, false, nil
	}
	if len(it.b) < 4 {
		return nil, nil, false, fmt.Errorf("header field at +%d: %d stray bytes, a field length needs 4", it.off, len(it.b))
	}
	n := binary.LittleEndian.Uint32(it.b)
	if uint64(n) > uint64(len(it.b)-4) {
		return nil, nil, false, fmt.Errorf("header field at +%d: length %d runs past the header (%d bytes left)", it.off, n, len(it.b)-4)
	}
	f := it.b[4 : 4+n]
	it.b = it.b[4+n:]
	at := it.off
	it.off += 4 + int(n)
	eq := bytes.IndexByte(f, '=')
	if eq < 0 {
		return nil, nil, false, fmt.Errorf("header field at +%d: no '=' in %d bytes", at, n)
	}
	return f[:eq], f[eq+1:], true, nil
}

// parseHeader reads a record header. Unknown fields are skipped (the
// format allows them); a known field of the wrong size, or no op, is an
// error. It does not allocate.
func parseHeader(b []byte, h *recordHeader) error {
	*h = recordHeader{}
	it := fieldIter{b: b}
	for {
		name, v, ok, err := it.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := h.set(name, v); err != nil {
			return err
		}
	}
	if !h.has(hasOp) {
		return fmt.Errorf("record header has no op field")
	}
	return nil
}

func (h *recordHeader) set(name, v []byte) error {
	want := 0
	switch string(name) { // no allocation: the compiler compares in place
	case "op":
		want = 1
	case "conn_count", "chunk_count", "size", "conn", "ver", "count":
		want = 4
	case "index_pos", "time", "chunk_pos", "start_time", "end_time":
		want = 8
	case "compression":
		h.compression, h.fields = v, h.fields|hasCompression
		return nil
	case "topic":
		h.topic, h.fields = v, h.fields|hasTopic
		return nil
	default:
		return nil
	}
	if len(v) != want {
		return fmt.Errorf("header field %q: %d bytes, want %d", name, len(v), want)
	}
	le := binary.LittleEndian
	switch string(name) {
	case "op":
		h.op, h.fields = v[0], h.fields|hasOp
	case "conn_count":
		h.connCount, h.fields = le.Uint32(v), h.fields|hasConnCount
	case "chunk_count":
		h.chunkCount, h.fields = le.Uint32(v), h.fields|hasChunkCount
	case "size":
		h.size, h.fields = le.Uint32(v), h.fields|hasSize
	case "conn":
		h.conn, h.fields = le.Uint32(v), h.fields|hasConn
	case "ver":
		h.ver, h.fields = le.Uint32(v), h.fields|hasVer
	case "count":
		h.count, h.fields = le.Uint32(v), h.fields|hasCount
	case "index_pos":
		h.indexPos, h.fields = le.Uint64(v), h.fields|hasIndexPos
	case "chunk_pos":
		h.chunkPos, h.fields = le.Uint64(v), h.fields|hasChunkPos
	case "time":
		h.time, h.fields = rosTimeFrom(v), h.fields|hasTime
	case "start_time":
		h.startTime, h.fields = rosTimeFrom(v), h.fields|hasStartTime
	case "end_time":
		h.endTime, h.fields = rosTimeFrom(v), h.fields|hasEndTime
	}
	return nil
}

// require checks that a record of h.op carries the fields it needs.
func (h *recordHeader) require() error {
	var need uint16
	switch h.op {
	case opBagHeader:
		need = hasIndexPos | hasConnCount | hasChunkCount
	case opChunk:
		need = hasCompression | hasSize
	case opConnection:
		need = hasConn | hasTopic
	case opMsgData:
		need = hasConn | hasTime
	case opIndexData:
		need = hasVer | hasConn | hasCount
	case opChunkInfo:
		need = hasVer | hasChunkPos | hasStartTime | hasEndTime | hasCount
	default:
		return nil
	}
	if !h.has(need) {
		return fmt.Errorf("%s record lacks required header fields", opName(h.op))
	}
	return nil
}

// memRecord is one record parsed from a byte slice (a chunk's data).
type memRecord struct {
	h    recordHeader
	data []byte // aliases the chunk
	next int    // offset of the following record
}

// checkHeaderLen refuses a record header length over the cap
// (Options.MaxHeaderBytes), before anything is allocated for it: the
// one check, and wording, of the file reader and the chunk parser.
func checkHeaderLen(hl int64, maxHeader int) error {
	if hl > int64(maxHeader) {
		return fmt.Errorf("record header length %d exceeds the cap %d (a corrupt bag, or raise Options.MaxHeaderBytes)", hl, maxHeader)
	}
	return nil
}

// parseRecordAt parses the record at off in b. maxHeader caps the header
// length. Nothing is allocated; data aliases b.
func parseRecordAt(b []byte, off int, maxHeader int, r *memRecord) error {
	rest := len(b) - off
	if off < 0 || rest < 4 {
		return fmt.Errorf("record truncated: %d bytes left, a header length needs 4", max(rest, 0))
	}
	hl := binary.LittleEndian.Uint32(b[off:])
	if err := checkHeaderLen(int64(hl), maxHeader); err != nil {
		return err
	}
	if uint64(hl) > uint64(rest-4) {
		return fmt.Errorf("record header length %d runs past the end (%d bytes left)", hl, rest-4)
	}
	hs := off + 4
	he := hs + int(hl)
	if err := parseHeader(b[hs:he], &r.h); err != nil {
		return err
	}
	if len(b)-he < 4 {
		return fmt.Errorf("record truncated after its header: no data length")
	}
	dl := binary.LittleEndian.Uint32(b[he:])
	ds := he + 4
	if uint64(dl) > uint64(len(b)-ds) {
		return fmt.Errorf("%s record data length %d runs past the end (%d bytes left)", opName(r.h.op), dl, len(b)-ds)
	}
	r.data = b[ds : ds+int(dl)]
	r.next = ds + int(dl)
	return nil
}
