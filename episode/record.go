package episode

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
)

// MaxRecordBytes caps one record's payload, checked before allocating.
const MaxRecordBytes = 1 << 20

// MaxFileBytes caps a record file: read into memory whole by every
// reader, so no writer makes one larger (AppendRecord).
const MaxFileBytes = 512 << 20

const recordHeader = 8

// A record file (segments.rec, transitions.rec) starts with fileMagic
// and a version byte, so a reader can tell it from any other file and a
// future format from this one. Files written before the header existed
// start with their first record instead; they are read as version 1. The
// two cannot be confused: a record's length is at most MaxRecordBytes, so
// its fourth byte is 0, and the magic has none.
const (
	fileMagic       = "EDEPREC"
	fileVersion     = 1
	fileHeaderBytes = len(fileMagic) + 1
)

// ErrNewerFormat: a record file was written by a newer edged, in a
// version this one cannot read.
var ErrNewerFormat = errors.New("episode: record file written by a newer edged (upgrade edged to read it)")

// FileHeader is the header of every record file this edged writes
// (AppendRecord writes it first into a new one).
func FileHeader() []byte { return append([]byte(fileMagic), fileVersion) }

// recordsStart returns where the records of file b start: after the
// header, or at 0 in a file written before headers. A header of a
// version this edged does not know is an error wrapping ErrNewerFormat.
func recordsStart(b []byte) (int, error) {
	if len(b) < fileHeaderBytes || string(b[:len(fileMagic)]) != fileMagic {
		return 0, nil
	}
	if v := b[len(fileMagic)]; v != fileVersion {
		return 0, fmt.Errorf("%w: version %d, this edged reads %d", ErrNewerFormat, v, fileVersion)
	}
	return fileHeaderBytes, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrRecordTooLarge: a record, or the record file it would be appended
// to, is over its cap (MaxRecordBytes, MaxFileBytes). Nothing was
// written; the same record will never fit.
var ErrRecordTooLarge = errors.New("episode: record too large")

// AppendRecord returns dst with what adds payload as one record to a
// record file of size bytes: the file header first when the file is new
// (size 0), then the record (length, CRC32C, payload). It is the one
// write path of segments.rec and transitions.rec: the robot's store
// appends what it returns to its local file (dst empty, size the file's),
// a receiver appends to the blob's bytes and puts them (dst those bytes,
// size their length), recovery rewrites a repaired file record by record.
// A payload over MaxRecordBytes, or a file that would grow past
// MaxFileBytes (which no reader could read), is an error wrapping
// ErrRecordTooLarge, and dst is returned as it was; so is an empty
// payload, which no reader would take for a record.
func AppendRecord(dst []byte, size int64, payload []byte) ([]byte, error) {
	if len(payload) == 0 {
		return dst, errors.New("episode: an empty record (the readers take a length of 0 for damage)")
	}
	if len(payload) > MaxRecordBytes {
		return dst, fmt.Errorf("%w: %d bytes, at most %d (a label, a detail or a goal's arguments are too long)",
			ErrRecordTooLarge, len(payload), MaxRecordBytes)
	}
	add := int64(recordHeader + len(payload))
	if size == 0 {
		add += int64(fileHeaderBytes)
	}
	if size+add > MaxFileBytes {
		return dst, fmt.Errorf("%w: the record file would grow to %d bytes, at most %d", ErrRecordTooLarge, size+add, MaxFileBytes)
	}
	if size == 0 {
		dst = append(dst, FileHeader()...)
	}
	return frameRecord(dst, payload), nil
}

// frameRecord frames payload as one record.
func frameRecord(dst, payload []byte) []byte {
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

// Region is a byte range of a record file that holds no valid record.
type Region struct {
	Off, Len int
}

// Scan is the result of reading a record file. Offsets are from the
// start of the file.
type Scan struct {
	Records [][]byte // payloads, aliasing the file bytes
	Bad     []Region // corrupt regions followed by valid records
	Torn    Region   // Len > 0: an unreadable tail, to cut off
	GoodEnd int      // where the last valid record ends
}

// ScanRecords reads every valid record of the record file b, with or
// without a header. After a bad byte it looks for the next offset where a
// whole record with a matching checksum starts (resynchronization); bad
// bytes with a good record after them are corrupt, bad bytes up to the
// end are a torn tail. A damaged header is such bad bytes. The error
// (ErrNewerFormat) is for a file of an unknown version, left unread.
func ScanRecords(b []byte) (Scan, error) {
	var s Scan
	off, err := recordsStart(b)
	if err != nil {
		return s, err
	}
	s.GoodEnd = off
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
			s.Torn = Region{Off: off, Len: len(b) - off}
			break
		}
		s.Bad = append(s.Bad, Region{Off: off, Len: next - off})
		off = next
	}
	return s, nil
}

func (r Region) String() string { return fmt.Sprintf("%d bytes at offset %d", r.Len, r.Off) }

// DecodeRecords decodes JSON records (ScanRecords' payloads) into Ts,
// skipping and counting the ones that do not decode.
func DecodeRecords[T any](recs [][]byte) (out []T, bad int) {
	out = make([]T, 0, len(recs))
	for _, p := range recs {
		var v T
		if err := json.Unmarshal(p, &v); err != nil {
			bad++
			continue
		}
		out = append(out, v)
	}
	return out, bad
}
