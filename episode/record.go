package episode

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// MaxRecordBytes caps one record's payload, checked before allocating.
const MaxRecordBytes = 1 << 20

// maxFileBytes caps a record file read into memory.
const maxFileBytes = 512 << 20

const recordHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord frames payload as one record.
func appendRecord(dst, payload []byte) []byte {
	var h [recordHeader]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], crc32.Checksum(payload, castagnoli))
	return append(append(dst, h[:]...), payload...)
}

// recordAt returns the payload of a well-formed record at off and its
// total size, or ok false.
func recordAt(b []byte, off int) (payload []byte, size int, ok bool) {
	if len(b)-off < recordHeader {
		return nil, 0, false
	}
	n := binary.LittleEndian.Uint32(b[off : off+4])
	if n == 0 || n > MaxRecordBytes || uint64(n) > uint64(len(b)-off-recordHeader) {
		return nil, 0, false
	}
	p := b[off+recordHeader : off+recordHeader+int(n)]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[off+4:off+8]) {
		return nil, 0, false
	}
	return p, recordHeader + int(n), true
}

// badRegion is a byte range of a record file that holds no valid record.
type badRegion struct {
	Off, Len int
}

// scan is the result of reading a record file.
type scan struct {
	Records [][]byte    // payloads, aliasing the file bytes
	Bad     []badRegion // corrupt regions followed by valid records
	Torn    badRegion   // Len > 0: an unreadable tail, to cut off
	GoodEnd int         // where the last valid record ends
}

// scanRecords reads every valid record of b. After a bad byte it looks
// for the next offset where a whole record with a matching checksum
// starts (resynchronization); bad bytes with a good record after them are
// corrupt, bad bytes up to the end are a torn tail.
func scanRecords(b []byte) scan {
	var s scan
	off := 0
	for off < len(b) {
		if p, n, ok := recordAt(b, off); ok {
			s.Records = append(s.Records, p)
			off += n
			s.GoodEnd = off
			continue
		}
		next := -1
		for k := off + 1; k+recordHeader < len(b); k++ {
			if _, _, ok := recordAt(b, k); ok {
				next = k
				break
			}
		}
		if next < 0 {
			s.Torn = badRegion{Off: off, Len: len(b) - off}
			break
		}
		s.Bad = append(s.Bad, badRegion{Off: off, Len: next - off})
		off = next
	}
	return s
}

func (r badRegion) String() string { return fmt.Sprintf("%d bytes at offset %d", r.Len, r.Off) }
