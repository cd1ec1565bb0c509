package episode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
)

// MaxRecordBytes caps one record's payload, checked before allocating.
const MaxRecordBytes = 1 << 20

// maxFileBytes caps a record file read into memory.
const maxFileBytes = 512 << 20

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

// fileHeader is the header of a new record file.
func fileHeader() []byte { return append([]byte(fileMagic), fileVersion) }

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

// openRecordFile opens a record file for appending and returns its size.
// A new (empty) file gets the header first; an existing one, with or
// without a header, is appended to as it is (the records are the same).
func openRecordFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	size := st.Size()
	if size == 0 {
		if _, err := f.Write(fileHeader()); err != nil {
			_ = f.Truncate(0)
			f.Close()
			return nil, 0, err
		}
		size = int64(fileHeaderBytes)
	}
	return f, size, nil
}

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

// scan is the result of reading a record file. Offsets are from the
// start of the file.
type scan struct {
	Records [][]byte    // payloads, aliasing the file bytes
	Bad     []badRegion // corrupt regions followed by valid records
	Torn    badRegion   // Len > 0: an unreadable tail, to cut off
	GoodEnd int         // where the last valid record ends
}

// scanRecords reads every valid record of the record file b, with or
// without a header. After a bad byte it looks for the next offset where a
// whole record with a matching checksum starts (resynchronization); bad
// bytes with a good record after them are corrupt, bad bytes up to the
// end are a torn tail. A damaged header is such bad bytes. The error
// (ErrNewerFormat) is for a file of an unknown version, left unread.
func scanRecords(b []byte) (scan, error) {
	var s scan
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
			s.Torn = badRegion{Off: off, Len: len(b) - off}
			break
		}
		s.Bad = append(s.Bad, badRegion{Off: off, Len: next - off})
		off = next
	}
	return s, nil
}

func (r badRegion) String() string { return fmt.Sprintf("%d bytes at offset %d", r.Len, r.Off) }
