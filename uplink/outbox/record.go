package outbox

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// The outbox's files: filePrefix + 16 hex digits + ".log". Files of an
// edged before groups (oldFilePrefix: only 'P', 'A' and 'E' records)
// are read and drained, never written: an edged before groups reads only
// those, so after a downgrade it leaves the newer files alone (their
// messages wait for a newer edged) instead of cutting their records,
// unknown to it, off as a torn tail.
const (
	filePrefix    = "obx-"
	oldFilePrefix = "seg-"
)

const (
	magic      = "EDOB"
	headerLen  = 12 // magic, length, crc
	bodyPrefix = 10 // type, priority, sequence

	recPut   = 'P'
	recAck   = 'A'
	recEvict = 'E'
	// A message of a group (Msg.Group), kept after its Ack until Done:
	// recGroup as put, recHeld a compaction's copy of one acknowledged
	// already (held); their data starts with the group and the name
	// (appendGroupData). recDone is the tombstone of Done.
	recGroup = 'G'
	recHeld  = 'H'
	recDone  = 'D'
)

// maxGroupName bounds Msg.Group and Msg.Name (one length byte each).
const maxGroupName = 255

// appendGroupData appends a group message's record data: uint8 length
// and the group, uint8 length and the name, then the message.
func appendGroupData(dst []byte, group, name string, data []byte) []byte {
	dst = append(dst, byte(len(group)))
	dst = append(dst, group...)
	dst = append(dst, byte(len(name)))
	dst = append(dst, name...)
	return append(dst, data...)
}

// splitGroupData is appendGroupData's inverse; ok is false when the
// lengths do not fit in b.
func splitGroupData(b []byte) (group, name string, data []byte, ok bool) {
	if len(b) < 1 || len(b) < 1+int(b[0])+1 {
		return "", "", nil, false
	}
	g := b[1 : 1+int(b[0])]
	b = b[1+int(b[0]):]
	if len(b) < 1+int(b[0]) {
		return "", "", nil, false
	}
	return string(g), string(b[1 : 1+int(b[0])]), b[1+int(b[0]):], true
}

// isPut: the record stores a message (not a tombstone).
func isPut(typ byte) bool { return typ == recPut || typ == recGroup || typ == recHeld }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends one record to dst.
func appendRecord(dst []byte, typ byte, prio Priority, seq uint64, data []byte) []byte {
	n := bodyPrefix + len(data)
	start := len(dst)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = binary.LittleEndian.AppendUint32(dst, 0)
	dst = append(dst, typ, byte(prio))
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = append(dst, data...)
	binary.LittleEndian.PutUint32(dst[start+8:], crc32.Checksum(dst[start+headerLen:], castagnoli))
	return dst
}

// record is one parsed record; data aliases the input.
type record struct {
	typ  byte
	prio Priority
	seq  uint64
	data []byte // the message (after the group and name)
	size int    // bytes of the whole record
	// group and name of a recGroup or recHeld record.
	group, name string
}

// parseRecord parses the record at the start of b. ok is false when b
// does not start with a complete, valid record (bad magic, a length over
// maxBody, too few bytes, a checksum mismatch or an unknown type).
func parseRecord(b []byte, maxBody int) (r record, ok bool) {
	if len(b) < headerLen+bodyPrefix || string(b[:4]) != magic {
		return r, false
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n < bodyPrefix || n > maxBody || len(b) < headerLen+n {
		return r, false
	}
	body := b[headerLen : headerLen+n]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return r, false
	}
	r = record{typ: body[0], prio: Priority(body[1]), seq: binary.LittleEndian.Uint64(body[2:]), data: body[bodyPrefix:], size: headerLen + n}
	switch {
	case !isPut(r.typ) && r.typ != recAck && r.typ != recEvict && r.typ != recDone:
		return r, false
	case r.prio >= numPriorities:
		return r, false
	case !isPut(r.typ) && len(r.data) != 0:
		return r, false
	}
	if r.typ == recGroup || r.typ == recHeld {
		if r.group, r.name, r.data, ok = splitGroupData(r.data); !ok || r.group == "" {
			return r, false
		}
	}
	return r, true
}

// resync returns the offset of the next valid record in b after from, or
// -1 when there is none.
func resync(b []byte, from, maxBody int) int {
	for i := from + 1; i < len(b); {
		j := bytes.Index(b[i:], []byte(magic))
		if j < 0 {
			return -1
		}
		if _, ok := parseRecord(b[i+j:], maxBody); ok {
			return i + j
		}
		i += j + 1
	}
	return -1
}
